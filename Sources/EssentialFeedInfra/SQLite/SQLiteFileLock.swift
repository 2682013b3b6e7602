import CSQLite
import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A lock taken with `SQLiteConnection.lockFileExclusively()`.
struct SQLiteFileLock {
    let file: UnsafeMutablePointer<sqlite3_file>
    let methods: sqlite3_io_methods

    func unlock() {
        _ = methods.xUnlock?(file, SQLITE_LOCK_NONE)
    }

    /// The locked file's first bytes (`SQLiteFileHeader.length` at most).
    func header() -> [UInt8] {
        SQLiteConnection.readHeader(file, methods)
    }

    /// Empties the locked file, durably, and makes it readable by its owner
    /// only, as a store file created anew would be (`chmod` by path: closing a
    /// descriptor of the file would release this process's locks on it).
    func truncate(_ path: String) throws(ErrorRecord) {
        guard methods.xTruncate?(file, 0) == SQLITE_OK, methods.xSync?(file, SQLITE_SYNC_FULL) == SQLITE_OK else {
            throw ErrorRecord(.store, "cannot write \(path): cannot empty the unreadable file")
        }
        _ = chmod(path, 0o600)
    }
}
