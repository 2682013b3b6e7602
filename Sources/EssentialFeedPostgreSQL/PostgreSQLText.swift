/// How the store's text columns hold any string, and how rows travel in
/// `COPY`'s text format.
///
/// PostgreSQL's `text` cannot hold NUL, which a JSON string can (`\u0000`).
/// So a column holds the string with each backslash doubled and each NUL
/// written `\0`; every other character is as it is (a query with `psql`
/// reads the text as it is, but for those two).
enum PostgreSQLText {
    private static let backslash = UInt8(ascii: "\\")

    /// `text` as its column holds it (for a query's parameter).
    static func column(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == backslash || $0 == 0 }) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 8)
        for byte in text.utf8 {
            switch byte {
            case backslash: out += [backslash, backslash]
            case 0: out += [backslash, UInt8(ascii: "0")]
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The string a column's `bytes` hold.
    static func string(column bytes: UnsafeBufferPointer<UInt8>) -> String {
        var copy = Array(bytes)
        let count = copy.withUnsafeMutableBufferPointer { decodeColumn($0, 0, $0.count) }
        return String(decoding: copy[..<count], as: UTF8.self)
    }

    /// Undoes the column's escapes of `buffer[start..<end]` in place; the new end.
    @discardableResult
    static func decodeColumn(_ buffer: UnsafeMutableBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int {
        var read = start, write = start
        while read < end {
            let byte = buffer[read]
            if byte == backslash, read + 1 < end {
                buffer[write] = buffer[read + 1] == UInt8(ascii: "0") ? 0 : buffer[read + 1]
                read += 2
            } else {
                buffer[write] = byte
                read += 1
            }
            write += 1
        }
        return write
    }

    /// Appends `bytes` (nil: NULL) as one field of a `COPY … FROM STDIN`
    /// row in text format: the column's escapes, then the format's own.
    static func appendCopyField(_ bytes: UnsafeBufferPointer<UInt8>?, to out: inout [UInt8]) {
        guard let bytes else {
            out += [backslash, UInt8(ascii: "N")]
            return
        }
        // Runs of bytes that need no escape are copied whole.
        var run = 0
        for i in 0..<bytes.count {
            let byte = bytes[i]
            if byte > 13 && byte != backslash { continue }
            let escape: UInt8
            switch byte {
            case backslash: escape = backslash
            case 0: escape = 0
            case 9: escape = UInt8(ascii: "t")
            case 10: escape = UInt8(ascii: "n")
            case 13: escape = UInt8(ascii: "r")
            default: continue
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<i]))
            run = i + 1
            switch escape {
            case backslash:
                for _ in 0..<4 { out.append(backslash) }
            case 0:
                out.append(backslash)
                out.append(backslash)
                out.append(UInt8(ascii: "0"))
            default:
                out.append(backslash)
                out.append(escape)
            }
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
    }

    /// Splits one row of a `COPY … TO STDOUT` in text format (its newline
    /// included or not) into `fields`, each decoded (the format's escapes,
    /// then the column's) into `scratch`: a field is a range of `scratch`,
    /// nil for NULL. False when the row has not `fields.count` fields.
    static func decodeRow(_ row: UnsafeBufferPointer<UInt8>, scratch: inout [UInt8], fields: inout [Range<Int>?]) -> Bool {
        scratch.removeAll(keepingCapacity: true)
        var end = row.count
        if end > 0, row[end - 1] == 10 { end -= 1 }
        var field = 0, start = 0, i = 0
        var fieldStart = 0
        var escaped = false
        while true {
            if i == end || row[i] == 9 {
                guard field < fields.count else { return false }
                if i - start == 2, row[start] == backslash, row[start + 1] == UInt8(ascii: "N") {
                    fields[field] = nil
                    scratch.removeLast(scratch.count - fieldStart)
                } else {
                    var to = scratch.count
                    if escaped { to = scratch.withUnsafeMutableBufferPointer { decodeColumn($0, fieldStart, to) } }
                    scratch.removeLast(scratch.count - to)
                    fields[field] = fieldStart..<to
                }
                field += 1
                escaped = false
                if i == end { break }
                i += 1
                start = i
                fieldStart = scratch.count
                continue
            }
            let byte = row[i]
            guard byte == backslash, i + 1 < end else {
                if byte == backslash { escaped = true }
                scratch.append(byte)
                i += 1
                continue
            }
            let next = row[i + 1]
            i += 2
            switch next {
            case UInt8(ascii: "b"): scratch.append(8)
            case UInt8(ascii: "f"): scratch.append(12)
            case UInt8(ascii: "n"): scratch.append(10)
            case UInt8(ascii: "r"): scratch.append(13)
            case UInt8(ascii: "t"): scratch.append(9)
            case UInt8(ascii: "v"): scratch.append(11)
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var value = Int(next - UInt8(ascii: "0"))
                for _ in 0..<2 where i < end && (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(row[i]) {
                    value = value * 8 + Int(row[i] - UInt8(ascii: "0"))
                    i += 1
                }
                scratch.append(UInt8(truncatingIfNeeded: value))
            case UInt8(ascii: "x") where i < end && hex(row[i]) != nil:
                var value = hex(row[i])!
                i += 1
                if i < end, let low = hex(row[i]) {
                    value = value * 16 + low
                    i += 1
                }
                scratch.append(UInt8(value))
            default:
                scratch.append(next)
            }
            if scratch.last == backslash { escaped = true }
        }
        return field == fields.count
    }

    private static func hex(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }
}
