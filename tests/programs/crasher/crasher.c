/*
 * crasher: a server that fails at once. Booted as a "server" module, it
 * exits as soon as init starts it, every time, so that the keeper's limit
 * on restarts (servers/init/services.c) can be seen at work: init must
 * restart it a few times and then give up on it with one clear line.
 */
#define CRASHER_STATUS 3 /* not 0: a server that exits has failed */

int main(void)
{
	return CRASHER_STATUS;
}
