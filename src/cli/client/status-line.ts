import type { SvgStreamEvent } from '../../contract/svgs.ts';
import { cliIo, type CliStream } from '../io.ts';
import { advance, progressLine, startProgress, type Progress } from './progress.ts';

/** Where a running operation reports: an updating line on a terminal, or nothing. */
export interface ProgressReporter {
  update(event: SvgStreamEvent): void;
  /** Prints a line of stdout without tearing the status line. */
  print(line: string): void;
  /** Stops updating and leaves the final line, its phase set to `phase` (done, failed…). */
  finish(phase: string): void;
}

/** Erase the line and return to its start (ANSI "erase in line"). */
const CLEAR = '\r\u001b[2K';
/** Redraw so the elapsed time moves while the model thinks between events. */
const TICK_MS = 250;

/** The status line goes to stderr, and only to a terminal: piped output stays plain lines of paths. */
export function progressReporter(operation: string, expected: number, testKey = false, { stdout, stderr, env } = cliIo()): ProgressReporter {
  if (!stderr.isTTY || env.TERM === 'dumb') return silentReporter(stdout);
  let progress: Progress = startProgress(operation, expected, Date.now(), testKey);
  const draw = () => stderr.write(`${CLEAR}${progressLine(progress, Date.now(), stderr.columns || 80)}`);
  const ticker = setInterval(draw, TICK_MS);
  ticker.unref();
  draw();
  return {
    update(event) {
      progress = advance(progress, event);
      draw();
    },
    print(line) {
      stderr.write(CLEAR);
      stdout.write(`${line}\n`);
      draw();
    },
    finish(phase) {
      clearInterval(ticker);
      progress = { ...progress, phase, status: undefined };
      draw();
      stderr.write('\n');
    },
  };
}

function silentReporter(stdout: CliStream): ProgressReporter {
  return {
    update() {},
    print(line) {
      stdout.write(`${line}\n`);
    },
    finish() {},
  };
}
