import { describeCause, isUnavailable } from './errors.js';

export type AvailabilityChange = { available: true } | { available: false; cause: string; error: unknown };
export type AvailabilityListener = (change: AvailabilityChange) => void;

/**
 * Whether the database answers and accepts writes, as the last operation found it. A storage or
 * connection failure marks it unavailable and the next success marks it available again; each
 * change is reported once to the listeners (one log line per outage, not one per request).
 * Errors that are not about availability (a unique violation, a bug) change nothing.
 */
export class Availability {
  private downSince: string | null = null;
  private readonly listeners: AvailabilityListener[] = [];

  get available(): boolean {
    return this.downSince === null;
  }

  onChange(listener: AvailabilityListener): void {
    this.listeners.push(listener);
  }

  failed(error: unknown): void {
    if (this.downSince !== null || !isUnavailable(error)) return;
    this.downSince = describeCause(error);
    for (const listener of this.listeners) listener({ available: false, cause: this.downSince, error });
  }

  succeeded(): void {
    if (this.downSince === null) return;
    this.downSince = null;
    for (const listener of this.listeners) listener({ available: true });
  }

  /** Runs `operation`, recording its outcome. */
  async track<T>(operation: Promise<T>): Promise<T> {
    try {
      const value = await operation;
      this.succeeded();
      return value;
    } catch (error) {
      this.failed(error);
      throw error;
    }
  }
}
