/*
 * list: intrusive circular doubly-linked lists. An empty list is a head
 * pointing at itself; a node that is on no list points at itself too, so
 * list_linked() can tell.
 */
#ifndef SPOOR_LIB_LIST_H
#define SPOOR_LIB_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct list {
	struct list *next;
	struct list *prev;
};

#define LIST_INIT(name)                                                                            \
	{                                                                                          \
		&(name), &(name)                                                                   \
	}

#define list_entry(node, type, member) ((type *)((char *)(node)-offsetof(type, member)))

static inline void list_init(struct list *l)
{
	l->next = l;
	l->prev = l;
}

static inline bool list_empty(const struct list *l)
{
	return l->next == l;
}

/* True if the node is on some list (nodes are list_init'ed when off lists). */
static inline bool list_linked(const struct list *node)
{
	return node->next != node;
}

static inline void list_add_tail(struct list *head, struct list *node)
{
	node->prev = head->prev;
	node->next = head;
	head->prev->next = node;
	head->prev = node;
}

static inline void list_remove(struct list *node)
{
	node->prev->next = node->next;
	node->next->prev = node->prev;
	list_init(node);
}

static inline struct list *list_pop(struct list *head)
{
	if (list_empty(head)) {
		return NULL;
	}
	struct list *node = head->next;
	list_remove(node);
	return node;
}

#define list_for_each(pos, head) for (pos = (head)->next; pos != (head); pos = pos->next)

#define list_for_each_safe(pos, tmp, head)                                                         \
	for (pos = (head)->next, tmp = pos->next; pos != (head); pos = tmp, tmp = pos->next)

#endif
