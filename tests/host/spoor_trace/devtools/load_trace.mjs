// Loads a Trace Event JSON into Chrome DevTools' trace engine, the parser of
// the Performance panel (npm @paulirish/trace_engine), as the panel does:
//
//     node load_trace.mjs NODE_MODULES TRACE.json
//
// and fails (exit 1, one line a problem) if the engine throws, logs an error
// or a warning (a B/E mismatch is a console.error), or leaves out a slice:
// every complete slice ("X") of the JSON must be an entry of its thread.
// Prints "N slices on M threads, S samples in P profiles" when the trace
// loads clean: S and P what the engine's Samples handler found in the
// Profile and ProfileChunk events.
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

const [modules, file] = process.argv.slice(2);
if (!modules || !file) {
  process.stderr.write('usage: node load_trace.mjs NODE_MODULES TRACE.json\n');
  process.exit(2);
}

// What the engine reports goes to the console: keep it, as failures.
const problems = [];
for (const level of ['error', 'warn']) {
  console[level] = (...args) => problems.push(`${level}: ${args.join(' ')}`);
}

const engine = path.join(modules, '@paulirish/trace_engine/analyze-trace.mjs');
const {analyzeEvents} = await import(pathToFileURL(engine).href);
const events = JSON.parse(fs.readFileSync(file, 'utf8')).traceEvents;
const want = events.filter((e) => e.ph === 'X').length;
let got = 0, threads = 0, samples = 0, profiles = 0;
try {
  const {parsedTrace} = await analyzeEvents(events);
  for (const proc of parsedTrace.data.Renderer.processes.values()) {
    for (const thread of proc.threads.values()) {
      threads++;
      got += thread.entries.filter((e) => e.ph === 'X' && e.name !== 'ProfileCall').length;
    }
  }
  for (const byThread of parsedTrace.data.Samples.profilesInProcess.values()) {
    for (const profile of byThread.values()) {
      profiles++;
      samples += profile.rawProfile.samples.length;
    }
  }
} catch (e) {
  problems.push(`the engine threw: ${e.stack.split('\n').slice(0, 2).join(' ')}`);
}
if (!problems.length && got !== want) {
  problems.push(`the engine has ${got} slices, the file ${want}`);
}
if (problems.length) {
  process.stdout.write(problems.map((p) => `${file}: ${p}\n`).join(''));
  process.exit(1);
}
process.stdout.write(`${got} slices on ${threads} threads, ${samples} samples in ${profiles} profiles\n`);
