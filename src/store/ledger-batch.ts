import { newId } from '../contract/ids.ts';
import type { Outcome } from './group-commit.ts';
import { InsufficientBalance, type LedgerEntry } from './ledger.ts';
import type { ReservationTable } from './tables.ts';

export type Reservation = ReservationTable;

export interface NewReservation {
  organizationId: string;
  amountMillicents: number;
  /** JSON of the pricing rule that settles it. */
  pricing: string;
  instanceId: string;
  requestId: string;
  keyId: string;
  model: string;
  operation: string;
  now?: number;
}

/** What the billing rule decides when a reservation closes, given the organization's token remainder. */
export type CloseDecision = (reservation: Reservation, tokenRemainder: number) => { millicents: number; tokenRemainder: number };

export interface ClosedReservation {
  reservation: Reservation;
  chargedMillicents: number;
}

/** The money columns of an organization, read under its lock. */
export interface OrganizationTotals {
  balance_millicents: number;
  reserved_millicents: number;
  token_remainder: number;
}

/** A reservation closing: its status, charge and time, written only while it is still open. */
export interface ReservationClaim {
  id: string;
  status: 'settled' | 'released';
  settled_millicents: number;
  updated_at: number;
}

/** What a batch needs from one transaction on one connection. */
export interface LedgerSession {
  /** Locks the organization row for the rest of the transaction and reads its totals. */
  lockOrganization(organizationId: string): Promise<OrganizationTotals | undefined>;
  /** Which of these reservations are still open. */
  openAmong(reservationIds: string[]): Promise<Set<string>>;
  insertReservations(rows: Reservation[]): Promise<void>;
  /** Returns how many were still open and so were claimed. */
  claimReservations(claims: ReservationClaim[]): Promise<number>;
  insertEntries(entries: LedgerEntry[]): Promise<void>;
  /** Adds the deltas, sets the remainder, and returns the totals after. */
  applyTotals(organizationId: string, balanceDelta: number, reservedDelta: number, tokenRemainder: number): Promise<OrganizationTotals>;
}

/** Runs work in one transaction: all of it commits (one flush), or none. */
export interface LedgerSessions {
  transaction<T>(work: (session: LedgerSession) => Promise<T>): Promise<T>;
}

export type LedgerOperation =
  | { kind: 'reserve'; spec: NewReservation; now: number }
  | { kind: 'close'; reservation: Reservation; decide: CloseDecision; note: string | null; needsRemainder: boolean; now: number };

export type LedgerResult = Reservation | ClosedReservation | undefined;

const refuse = (error: unknown): Outcome<LedgerResult> => ({ ok: false, error });
const accept = (value: LedgerResult): Outcome<LedgerResult> => ({ ok: true, value });

/**
 * One organization's reservations and settlements, committed together. Validate, then apply:
 * with the organization row locked, each operation is checked and planned in arrival order
 * against the running totals — one that cannot be covered, or whose rule throws, is answered
 * with its own error and writes nothing — and then every accepted one's rows are written in the
 * same transaction. Each keeps its own reservation and ledger entries, exactly as if it had
 * committed alone, and the totals after each are in its entries.
 */
export async function commitLedgerBatch(session: LedgerSession, organizationId: string, operations: LedgerOperation[]): Promise<Outcome<LedgerResult>[]> {
  const start = await session.lockOrganization(organizationId);
  if (!start) return operations.map(() => refuse(new Error(`organization ${organizationId} does not exist`)));
  const closing = operations.flatMap((op) => (op.kind === 'close' ? [op.reservation.id] : []));
  const open = closing.length > 0 ? await session.openAmong(closing) : new Set<string>();
  const plan = new BatchPlan(organizationId, start, open);
  const outcomes = operations.map((op) => (op.kind === 'reserve' ? plan.reserve(op) : plan.close(op)));
  await plan.write(session);
  return outcomes;
}

/**
 * A batch's rows and running totals as its operations are checked in arrival order, under the
 * organization's lock. Nothing is written until `write`: a refused operation leaves no trace.
 */
class BatchPlan {
  private balance: number;
  private reserved: number;
  private remainder: number;
  private readonly reservations: Reservation[] = [];
  private readonly claims: ReservationClaim[] = [];
  private readonly entries: LedgerEntry[] = [];

  constructor(
    private readonly organizationId: string,
    private readonly start: OrganizationTotals,
    /** The reservations still open among those the batch closes; each leaves it when closed. */
    private readonly open: Set<string>,
  ) {
    this.balance = start.balance_millicents;
    this.reserved = start.reserved_millicents;
    this.remainder = start.token_remainder;
  }

  reserve({ spec, now }: Extract<LedgerOperation, { kind: 'reserve' }>): Outcome<LedgerResult> {
    if (this.balance - this.reserved < spec.amountMillicents) return refuse(new InsufficientBalance(this.organizationId));
    const reservedAfter = this.reserved + spec.amountMillicents;
    // SQLite would store an unsafe integer silently.
    if (!Number.isSafeInteger(reservedAfter)) return refuse(new RangeError('the balance would leave the safe integer range'));
    const reservation: Reservation = {
      id: newId('reservation', now),
      organization_id: this.organizationId,
      status: 'open',
      amount_millicents: spec.amountMillicents,
      pricing: spec.pricing,
      delivered_outputs: 0,
      delivered_usage: null,
      settled_millicents: null,
      instance_id: spec.instanceId,
      request_id: spec.requestId,
      key_id: spec.keyId,
      model: spec.model,
      operation: spec.operation,
      created_at: now,
      updated_at: now,
    };
    this.reserved = reservedAfter;
    this.reservations.push(reservation);
    this.entries.push(entryOf(reservation, 'reserve', 0, spec.amountMillicents, this.balance, this.reserved, null, now));
    return accept(reservation);
  }

  close(op: Extract<LedgerOperation, { kind: 'close' }>): Outcome<LedgerResult> {
    const { reservation, now } = op;
    // Closed already (by an earlier batch, a recovery, or earlier in this one): nothing more to charge.
    if (!this.open.delete(reservation.id)) return accept(undefined);
    let decision: { millicents: number; tokenRemainder: number };
    try {
      decision = op.decide(reservation, op.needsRemainder ? this.remainder : 0);
    } catch (error) {
      this.open.add(reservation.id);
      return refuse(error);
    }
    const charged = Math.max(0, Math.min(reservation.amount_millicents, decision.millicents));
    const released = reservation.amount_millicents - charged;
    const balanceAfter = this.balance - charged;
    const reservedAfter = this.reserved - reservation.amount_millicents;
    if (!Number.isSafeInteger(balanceAfter) || !Number.isSafeInteger(reservedAfter)) {
      this.open.add(reservation.id);
      return refuse(new RangeError('the balance would leave the safe integer range'));
    }
    this.balance = balanceAfter;
    this.reserved = reservedAfter;
    if (op.needsRemainder) this.remainder = decision.tokenRemainder;
    this.claims.push({ id: reservation.id, status: charged > 0 ? 'settled' : 'released', settled_millicents: charged, updated_at: now });
    if (charged > 0) this.entries.push(entryOf(reservation, 'settle', -charged, -charged, this.balance, this.reserved + released, op.note, now));
    if (released > 0) this.entries.push(entryOf(reservation, 'release', 0, -released, this.balance, this.reserved, op.note, now));
    return accept({ reservation, chargedMillicents: charged });
  }

  /** Writes every accepted operation's rows and the new totals, in the caller's transaction. */
  async write(session: LedgerSession): Promise<void> {
    const { start } = this;
    if (this.reservations.length > 0) await session.insertReservations(this.reservations);
    if (this.claims.length > 0) {
      const claimed = await session.claimReservations(this.claims);
      // Every close takes the organization lock first, so what was open above is still open.
      if (claimed !== this.claims.length) throw new Error(`claimed ${claimed} of ${this.claims.length} reservations: closed outside the organization lock`);
    }
    if (this.entries.length > 0) await session.insertEntries(this.entries);
    if (this.entries.length > 0 || this.remainder !== start.token_remainder) {
      const after = await session.applyTotals(this.organizationId, this.balance - start.balance_millicents, this.reserved - start.reserved_millicents, this.remainder);
      if (after.balance_millicents !== this.balance || after.reserved_millicents !== this.reserved) {
        throw new Error('the organization totals moved under the batch');
      }
    }
  }
}

function entryOf(
  reservation: Reservation,
  kind: 'reserve' | 'settle' | 'release',
  amount: number,
  reservedDelta: number,
  balanceAfter: number,
  reservedAfter: number,
  note: string | null,
  now: number,
): LedgerEntry {
  return {
    id: newId('ledgerEntry', now),
    organization_id: reservation.organization_id,
    kind,
    amount_millicents: amount,
    balance_after_millicents: balanceAfter,
    reserved_delta_millicents: reservedDelta,
    reserved_after_millicents: reservedAfter,
    reservation_id: reservation.id,
    request_id: reservation.request_id,
    key_id: reservation.key_id,
    model: reservation.model,
    operation: reservation.operation,
    note,
    created_at: now,
  };
}
