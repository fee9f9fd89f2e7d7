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

  let balance = start.balance_millicents;
  let reserved = start.reserved_millicents;
  let remainder = start.token_remainder;
  const reservations: Reservation[] = [];
  const claims: ReservationClaim[] = [];
  const entries: LedgerEntry[] = [];
  const outcomes = operations.map((op): Outcome<LedgerResult> => {
    if (op.kind === 'reserve') {
      const { spec, now } = op;
      if (balance - reserved < spec.amountMillicents) return refuse(new InsufficientBalance(organizationId));
      const reservedAfter = reserved + spec.amountMillicents;
      // SQLite would store an unsafe integer silently.
      if (!Number.isSafeInteger(reservedAfter)) return refuse(new RangeError('the balance would leave the safe integer range'));
      const reservation: Reservation = {
        id: newId('reservation', now),
        organization_id: organizationId,
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
      reserved = reservedAfter;
      reservations.push(reservation);
      entries.push(entryOf(reservation, 'reserve', 0, spec.amountMillicents, balance, reserved, null, now));
      return accept(reservation);
    }

    const { reservation, now } = op;
    // Closed already (by an earlier batch, a recovery, or earlier in this one): nothing more to charge.
    if (!open.delete(reservation.id)) return accept(undefined);
    let decision: { millicents: number; tokenRemainder: number };
    try {
      decision = op.decide(reservation, op.needsRemainder ? remainder : 0);
    } catch (error) {
      open.add(reservation.id);
      return refuse(error);
    }
    const charged = Math.max(0, Math.min(reservation.amount_millicents, decision.millicents));
    const released = reservation.amount_millicents - charged;
    const balanceAfter = balance - charged;
    const reservedAfter = reserved - reservation.amount_millicents;
    if (!Number.isSafeInteger(balanceAfter) || !Number.isSafeInteger(reservedAfter)) {
      open.add(reservation.id);
      return refuse(new RangeError('the balance would leave the safe integer range'));
    }
    balance = balanceAfter;
    reserved = reservedAfter;
    if (op.needsRemainder) remainder = decision.tokenRemainder;
    claims.push({ id: reservation.id, status: charged > 0 ? 'settled' : 'released', settled_millicents: charged, updated_at: now });
    if (charged > 0) entries.push(entryOf(reservation, 'settle', -charged, -charged, balance, reserved + released, op.note, now));
    if (released > 0) entries.push(entryOf(reservation, 'release', 0, -released, balance, reserved, op.note, now));
    return accept({ reservation, chargedMillicents: charged });
  });

  if (reservations.length > 0) await session.insertReservations(reservations);
  if (claims.length > 0) {
    const claimed = await session.claimReservations(claims);
    // Every close takes the organization lock first, so what was open above is still open.
    if (claimed !== claims.length) throw new Error(`claimed ${claimed} of ${claims.length} reservations: closed outside the organization lock`);
  }
  if (entries.length > 0) await session.insertEntries(entries);
  if (entries.length > 0 || remainder !== start.token_remainder) {
    const after = await session.applyTotals(organizationId, balance - start.balance_millicents, reserved - start.reserved_millicents, remainder);
    if (after.balance_millicents !== balance || after.reserved_millicents !== reserved) {
      throw new Error('the organization totals moved under the batch');
    }
  }
  return outcomes;
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
