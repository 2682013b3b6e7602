import CSQLite
import EssentialFeed

/// The rollback an interrupt runs on the signal thread for a write
/// transaction in progress: it waits (a bounded time) for the guard, so that
/// it never runs in the middle of a call of the main thread, and keeps it: the
/// process ends next. Should the guard not come in time, the journal left
/// behind restores the old feed at the next access.
final class RollbackOnInterrupt: @unchecked Sendable {
    private let connection: SQLiteConnection

    init(_ connection: SQLiteConnection) {
        self.connection = connection
    }

    func run() {
        // First, so that a commit not yet under the guard does not commit.
        connection.interruptRequested.raise()
        guard connection.interruptGuard.lock(timeout: 2) else { return }
        connection.rollback()
    }
}
