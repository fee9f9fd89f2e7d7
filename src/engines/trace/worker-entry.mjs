// The tracer worker's entry when the server runs from the sources (tests, scripts under tsx): the
// process is started without the server's flags, so it registers tsx itself, then runs
// worker-main.ts. A build forks dist/engines/trace/worker-main.js directly, and has no copy of this.
import { register } from 'tsx/esm/api';

register();
await import('./worker-main.ts');
