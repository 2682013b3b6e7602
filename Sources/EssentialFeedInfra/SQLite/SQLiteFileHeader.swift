/// What the first bytes of a file say about whose it is, before the SQLite
/// store touches it: a feed cache of ours (the SQLite header and the store's
/// `application_id`), another SQLite database, or something else entirely.
/// Only an empty file or one of ours is ever written; damaged files are reset
/// only when their header still says they are ours.
public enum SQLiteFileHeader: Equatable, Sendable {
    /// No bytes at all: an empty store.
    case empty
    /// The SQLite header with this toolkit's `application_id`.
    case feedCache
    /// The SQLite header with another `application_id` (or none).
    case otherDatabase
    /// Not a SQLite file: a text file, another program's data.
    case notSQLite

    /// How many bytes `classify` reads: SQLite's database header.
    public static let length = 100
    static let magic: [UInt8] = Array("SQLite format 3".utf8) + [0]
    static let applicationIDOffset = 68

    /// Classifies the file from its first bytes (`bytes.count` may be under
    /// `length` for a short file).
    public static func classify(_ bytes: some Collection<UInt8>, applicationID: Int32 = SQLiteFeedStore.applicationID) -> SQLiteFileHeader {
        let bytes = Array(bytes)
        if bytes.isEmpty { return .empty }
        guard bytes.starts(with: magic) else { return .notSQLite }
        guard bytes.count >= applicationIDOffset + 4 else { return .otherDatabase }
        let id = bytes[applicationIDOffset..<applicationIDOffset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return Int32(bitPattern: id) == applicationID ? .feedCache : .otherDatabase
    }
}
