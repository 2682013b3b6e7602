/// The member names the mappers look for, told apart without building
/// strings: by length, then bytes. The one matcher of names; the fast path
/// adds a tuned recognizer of the item names in front of it (see `FastItems`).
enum MemberName: Equatable {
    case error, url, status, body, bodyBase64, items, id, image, description, location
    case message, createdAt, author, username, etag, lastModified, other

    @inline(__always)
    init(_ key: [UInt8]) {
        self = key.withUnsafeBufferPointer { MemberName($0) }
    }

    @inline(__always)
    init(_ k: UnsafeBufferPointer<UInt8>) {
        @inline(__always) func matches(_ word: StaticString) -> Bool {
            guard word.utf8CodeUnitCount == k.count else { return false }
            let w = word.utf8Start
            for i in 0..<k.count where w[i] != k[i] { return false }
            return true
        }
        switch k.count {
        case 2: self = matches("id") ? .id : .other
        case 3: self = matches("url") ? .url : .other
        case 4: self = matches("body") ? .body : matches("etag") ? .etag : .other
        case 5: self = matches("error") ? .error : matches("image") ? .image : matches("items") ? .items : .other
        case 6: self = matches("status") ? .status : matches("author") ? .author : .other
        case 7: self = matches("message") ? .message : .other
        case 8: self = matches("location") ? .location : matches("username") ? .username : .other
        case 10: self = matches("created_at") ? .createdAt : .other
        case 11: self = matches("description") ? .description : matches("body_base64") ? .bodyBase64 : .other
        case 13: self = matches("last_modified") ? .lastModified : .other
        default: self = .other
        }
    }
}
