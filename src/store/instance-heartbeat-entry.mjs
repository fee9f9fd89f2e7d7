// The heartbeat thread's entry when the server runs from the sources (tests, scripts under tsx): a
// worker thread does not inherit tsx registered through its API (bin/inkwell.js does that), and is
// started without the process's flags, so it registers tsx itself, then runs
// instance-heartbeat-thread.ts. A build starts dist/store/instance-heartbeat-thread.js directly,
// and has no copy of this.
import { register } from 'tsx/esm/api';

register();
await import('./instance-heartbeat-thread.ts');
