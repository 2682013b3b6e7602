import EssentialFeed
import Foundation
import XCTest

// The machinery of the mutation fuzzer in FuzzTests: a seeded PRNG, the seed
// corpus of real records, the mutations, the reference (document) mappers
// the streaming ones are compared with, and the bookkeeping of a run.
//
// Every input is derived from (seed, target, index) alone, so a failure
// printed as `seed 0x… target T input #N` is reproduced by running the
// same target with FEED_FUZZ_SEED=0x… (and at least N+1 iterations).

// MARK: - Random numbers

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and the same sequence
/// on every platform for a given seed.
struct SplitMix64: RandomNumberGenerator {
    private(set) var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The generator of input `index` of `target`: independent of every other input.
    static func forInput(seed: UInt64, target: String, index: Int) -> SplitMix64 {
        var salt: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a of the target name
        for byte in target.utf8 { salt = (salt ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        var mixer = SplitMix64(seed: seed ^ salt)
        mixer.state &+= UInt64(truncatingIfNeeded: index) &* 0xD1B5_4A32_D192_ED03
        return SplitMix64(seed: mixer.next())
    }

    mutating func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &self) < probability }

    mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &self)] }
}

// MARK: - Settings

/// How a run is sized: the quick suite's defaults, or the environment's
/// (`scripts/stress` sets these).
struct FuzzSettings {
    /// FEED_FUZZ_SEED (decimal or 0x-hex): the seed of every input.
    let seed: UInt64
    /// FEED_FUZZ_ITERATIONS: inputs per target (default 2000).
    let iterations: Int
    /// FEED_FUZZ_BIG_LINE_MB: the size of the huge-line inputs (default 5).
    let bigLineMegabytes: Int
    /// FEED_FUZZ_REPORT: a file the figures of each target are appended to.
    let reportPath: String?
    /// FEED_FUZZ_DUMP: a file each input is written to before it is tried,
    /// so that the input of a crash is left behind.
    let dumpPath: String?
    /// FEED_FUZZ_SLOWDOWN: a factor for every time limit (default 1), for
    /// builds that run slower by design, such as under a sanitizer.
    let slowdown: Double

    static let defaultSeed: UInt64 = 0x5EED_FEED_2024_0001

    static let current: FuzzSettings = {
        let env = ProcessInfo.processInfo.environment
        func number(_ name: String) -> UInt64? {
            guard let text = env[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            if text.lowercased().hasPrefix("0x") { return UInt64(text.dropFirst(2), radix: 16) }
            return UInt64(text)
        }
        return FuzzSettings(
            seed: number("FEED_FUZZ_SEED") ?? defaultSeed,
            iterations: number("FEED_FUZZ_ITERATIONS").map { Int(clamping: $0) } ?? 2000,
            bigLineMegabytes: number("FEED_FUZZ_BIG_LINE_MB").map { Int(clamping: $0) } ?? 5,
            reportPath: env["FEED_FUZZ_REPORT"].flatMap { $0.isEmpty ? nil : $0 },
            dumpPath: env["FEED_FUZZ_DUMP"].flatMap { $0.isEmpty ? nil : $0 },
            slowdown: env["FEED_FUZZ_SLOWDOWN"].flatMap { Double($0) }.map { max(1, $0) } ?? 1
        )
    }()

    var seedText: String { "0x" + String(seed, radix: 16, uppercase: true) }
}

// MARK: - The seed corpus

/// Real records of every kind a filter meets.
enum FuzzCorpus {
    static let feedResponses: [String] = [
        #"{"url":"http://127.0.0.1:8080/v1/feed?limit=10","status":200,"body":{"items":[{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","description":"Description 1","location":"Location 1","image":"https://url-1.com"},{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","description":"Description 2","image":"https://url-2.com"},{"id":"D5C4BD2A-8B47-4D9E-B7A3-5B4F5B4C8E1A","location":"Location 3","image":"https://url-3.com"}]}}"#,
        #"{"url":"http://h/v1/feed","status":200,"body":{"items":[{"id":"2ab2ae66-a4b7-4a16-b374-51bbac8db086","description":"d \"q\" \u00e9 \ud83d\ude00 tab\t nl\n \/","location":null,"image":"http://h/0"},{"image":"http://h/1","id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","extra":[1,-2.5e+3,{"x":null,"y":[true,false]}]}]}}"#,
        #"{"url":"http://h/v1/feed?limit=10&after_id=166FCDD7-C9F4-420A-B2D6-CE2EAFA3D82F","status":200,"body":{"items":[]}}"#,
        #"{"status":200,"body":{"other":1,"items":[{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","image":"x:y","description":"Ελληνικά · 日本語 · emoji 🙂"}],"more":{"a":[true,false,null]}}}"#,
        #"{"body":{"items":[{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","image":"http://h/late"}]},"status":200,"url":"http://h/v1/feed"}"#,
        #"{"url":"http://h/v1/feed","status":200,"body_base64":"eyJpdGVtcyI6W3siaWQiOiIyQUIyQUU2Ni1BNEI3LTRBMTYtQjM3NC01MUJCQUM4REIwODYiLCJpbWFnZSI6Imh0dHA6Ly9oLzAifV19"}"#,
        #"{"url":"http://h/v1/feed","status":404,"body":{"error":"not found"}}"#,
        #"{"url":"http://h/v1/feed","status":500,"body_base64":"PGh0bWw+b29wczwvaHRtbD4="}"#,
        #"{"url":"http://h/v1/feed","status":200,"body":"not an object"}"#,
    ]

    static let commentsResponses: [String] = [
        #"{"url":"http://h/v1/image/2AB2AE66-A4B7-4A16-B374-51BBAC8DB086/comments","status":200,"body":{"items":[{"id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0","message":"a message","created_at":"2020-05-20T11:24:59+0000","author":{"username":"a username"}},{"id":"1F4A3B22-9B50-4B6C-B8C1-6E8C0F9B7F2D","message":"another message","created_at":"2020-05-19T14:23:53+0000","author":{"username":"another username"}}]}}"#,
        #"{"url":"http://h/c","status":201,"body":{"items":[{"id":"7019d8a7-0b35-4057-b7f9-8c5471961ed0","message":"a \"message\" with \\ and \u0001 and \ud83d\ude00","created_at":"2020-05-20T11:24:59.250+02:00","author":{"username":"ü","x":1}}]}}"#,
        #"{"status":299,"body":{"items":[{"id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0","message":"m","created_at":"2020-05-20T11:24:59Z","author":{"username":"u"}}]}}"#,
        #"{"status":204,"body":{"items":[]}}"#,
        #"{"body":{"items":[{"author":{"username":"u"},"created_at":"2020-05-20T11:24:59Z","message":"m","id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0"}]},"status":200}"#,
        #"{"url":"http://h/c","status":300,"body":{"items":[]}}"#,
    ]

    static let feedImages: [String] = [
        #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","description":"a description","location":"a location","url":"http://h/image-0"}"#,
        #"{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","url":"http://h/image-1"}"#,
        #"{"id":"166fcdd7-c9f4-420a-b2d6-ce2eafa3d82f","description":null,"location":"\u00e9\t\"q\"","url":"https://h/image-2?x=1&y=%20","relative_date":"1 day ago"}"#,
        #"{"url":"http://h/image-3","id":"D5C4BD2A-8B47-4D9E-B7A3-5B4F5B4C8E1A","extra":{"nested":[1,2,{"a":"b"}]}}"#,
        #"{"id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0","message":"a message","created_at":"2020-05-20T11:24:59Z","username":"a username"}"#,
        #"{"url":"http://h/v1/feed?limit=10&after_id=166FCDD7-C9F4-420A-B2D6-CE2EAFA3D82F"}"#,
    ]

    static let errorRecords: [String] = [
        #"{"error":"connectivity","message":"cannot connect to 127.0.0.1:1: connection refused","url":"http://127.0.0.1:1/v1/feed"}"#,
        #"{"error":"invalid_data","message":"stdin:3: feed item 2: id is not a UUID"}"#,
        #"{"error":"not_found","message":"nothing cached in /tmp/feed.sqlite","extra":{"a":[1,2]}}"#,
        #"{"error":"busy","message":"feed.sqlite: store is busy"}"#,
        #"{"error":"something new","message":"unknown kinds count as internal"}"#,
    ]

    static let otherValues: [String] = [
        #"[1,2,3]"#, #""a string""#, #"-0.5e+3"#, #"true"#, #"null"#, #"{}"#,
        #"{"a":{"b":{"c":[[[],{}],"\u0000\u001f"]}},"n":12345678901234567890123,"e":1E999}"#,
    ]

    static var all: [String] { feedResponses + commentsResponses + feedImages + errorRecords + otherValues }

    /// The bodies of the response records, for `--raw`, some pretty-printed.
    static let payloads: [String] = [
        #"{"items":[{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","description":"Description 1","location":"Location 1","image":"https://url-1.com"},{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","image":"https://url-2.com"}]}"#,
        "{\n  \"items\": [\n    {\"id\": \"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086\", \"image\": \"http://h/0\"},\r\n    {\"id\": \"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A\", \"image\": \"http://h/1\", \"location\": null}\n  ]\n}\n",
        #"{"items":[{"id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0","message":"a message","created_at":"2020-05-20T11:24:59+0000","author":{"username":"a username"}}]}"#,
        "{\n\t\"items\" : [ ] ,\n\t\"next\" : null\n}",
        #"{"items":[]}"#,
    ]
}

// MARK: - Mutations

/// Mutations of a byte string, each chosen and placed by the PRNG.
enum FuzzMutator {
    static let tokens: [[UInt8]] = {
        var list: [[UInt8]] = [
            [0x00], [0x22], [0x5C], [0x7B], [0x5B], [0x7D], [0x5D], [0x2C], [0x3A], [0x20], [0x09], [0x0D], [0x7F], [0x1F],
            [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF5], [0xF4, 0x90, 0x80, 0x80], [0xE0, 0x80, 0xAF], [0xC3], [0xEF, 0xBB, 0xBF],
            [0xC3, 0xA9], [0xF0, 0x9F, 0x98, 0x80], [0xE2, 0x80, 0xA8],
        ]
        for text in [
            #"\ud800"#, #"\udc00"#, #"\ud800\udc00"#, #"\ud83d\ude00"#, #"\ud800\u0041"#, #"\udbff\udfff"#, #"\u0000"#,
            #"\u00e9"#, #"\uZZZZ"#, #"\u12"#, #"\x"#, #"\/"#, #"\"#, #"\""#,
            "1e999", "-1e-999", "123456789012345678901234567890", "-9223372036854775808", "9223372036854775808",
            "0", "-0", "01", "1.", ".5", "1e", "-", "200", "200.0", "2e2", "299", "-200",
            "true", "false", "null", "tru", "nul", #""""#, "{}", "[]", #""x""#, ",", ":",
        ] {
            list.append(Array(text.utf8))
        }
        return list
    }()

    /// Values put in place of an existing value.
    static let values: [String] = [
        "200", "201", "299", "300", "500", "0", "-0", "999", "1000", "200.0", "2e2", "1e999", "-1e-999",
        "123456789012345678901234567890", "9223372036854775807", "-9223372036854775808",
        "true", "false", "null", #""""#, #""200""#, "{}", "[]", #"{"items":[]}"#, #"{"items":{}}"#, #"[{}]"#, "[1]",
        #""2AB2AE66-A4B7-4A16-B374-51BBAC8DB086""#, #""2ab2ae66-a4b7-4a16-b374-51bbac8db08""#, #""2AB2AE66-A4B7-4A16-B374-51BBAC8DB086 ""#,
        #""-AB2AE66-A4B7-4A16-B374-51BBAC8DB086""#, #""\u0032AB2AE66-A4B7-4A16-B374-51BBAC8DB086""#,
        #""http://h/x""#, #""x:""#, #"":x""#, #""h ttp://x""#, #""http://h/\u0000""#, #""relative""#,
        #""2020-05-20T11:24:59+0000""#, #""2020-05-20T11:24:59.999999999Z""#, #""2020-02-30T11:24:59Z""#, #""2020-05-20""#,
        #""9999-12-31T23:59:60Z""#, #""2020-05-20T11:24:59+2400""#,
        #""eyJpdGVtcyI6W119""#, #""eyJpdGVtcyI6W119=""#, #""!!""#, #""""#,
        #""\ud800""#, #""\ud83d\ude00""#, #""a\"b\\c""#, #"{"username":"u"}"#, #"{"username":null}"#,
        #""connectivity""#, #""busy""#, #""usage""#, #""internal""#, #""store""#, #""nope""#,
    ]

    /// Members inserted into objects, making duplicate keys and mixed records.
    static let members: [String] = [
        #""status":200"#, #""status":500"#, #""status":201"#, #""status":"200""#, #""status":1e999"#, #""status":-1"#,
        #""body":{"items":[]}"#, #""body":null"#, #""body":[]"#,
        #""body_base64":"eyJpdGVtcyI6W119""#, #""body_base64":"!!""#, #""body_base64":5"#,
        #""error":"busy""#, #""error":5"#, #""error":"not_found""#, #""url":"http://h/x""#, #""url":5"#,
        #""items":[]"#, #""items":{}"#, #""items":[{}]"#,
        #""id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086""#, #""id":"not-a-uuid""#, #""id":null"#,
        #""image":"http://h/i""#, #""image":"rel""#, #""image":5"#,
        #""description":null"#, #""description":5"#, #""description":"d""#, #""location":"\u00e9""#, #""location":[]"#,
        #""message":"m""#, #""message":null"#, #""created_at":"2020-05-20T11:24:59+0000""#, #""created_at":"2020-13-45T99:99:99Z""#,
        #""author":{"username":"u"}"#, #""author":"u""#, #""author":{}"#, #""username":"v""#, #""username":7"#,
        #""relative_date":"now""#, #""":"""#, #""\u0069d":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086""#,
    ]

    /// Applies one to five mutations to `input`.
    static func mutate(_ input: [UInt8], corpus: [[UInt8]], rng: inout SplitMix64) -> [UInt8] {
        var bytes = input
        let count = rng.chance(0.6) ? 1 : Int.random(in: 2...5, using: &rng)
        for _ in 0..<count { mutateOnce(&bytes, corpus: corpus, rng: &rng) }
        return bytes
    }

    static func mutateOnce(_ bytes: inout [UInt8], corpus: [[UInt8]], rng: inout SplitMix64) {
        func position() -> Int { Int.random(in: 0...bytes.count, using: &rng) }
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<10:  // flip a bit
            guard !bytes.isEmpty else { return }
            let i = Int.random(in: 0..<bytes.count, using: &rng)
            bytes[i] ^= UInt8(1) << UInt8.random(in: 0...7, using: &rng)
        case 10..<16:  // any byte, often a high one
            guard !bytes.isEmpty else { return }
            let i = Int.random(in: 0..<bytes.count, using: &rng)
            bytes[i] = rng.chance(0.5) ? UInt8.random(in: 0x80...0xFF, using: &rng) : UInt8.random(in: 0...0xFF, using: &rng)
        case 16..<34:  // a token: structure, bad UTF-8, escapes, numbers
            var token = rng.pick(tokens)
            if rng.chance(0.1) { token = [UInt8.random(in: 0x80...0xFF, using: &rng)] }
            bytes.insert(contentsOf: token, at: interestingPosition(bytes, &rng) ?? position())
        case 34..<42:  // delete a range
            guard !bytes.isEmpty else { return }
            let start = Int.random(in: 0..<bytes.count, using: &rng)
            let length = min(bytes.count - start, rng.chance(0.7) ? Int.random(in: 1...4, using: &rng) : Int.random(in: 1...64, using: &rng))
            bytes.removeSubrange(start..<(start + length))
        case 42..<48:  // duplicate a range elsewhere
            guard !bytes.isEmpty else { return }
            let start = Int.random(in: 0..<bytes.count, using: &rng)
            let length = min(bytes.count - start, Int.random(in: 1...80, using: &rng))
            let slice = Array(bytes[start..<(start + length)])
            bytes.insert(contentsOf: slice, at: position())
        case 48..<54:  // truncate
            guard !bytes.isEmpty else { return }
            bytes.removeSubrange(Int.random(in: 0..<bytes.count, using: &rng)...)
        case 54..<68:  // a member: duplicate keys, mixed records
            insertMember(&bytes, &rng)
        case 68..<84:  // another value in place of one
            replaceValue(&bytes, &rng)
        case 84..<88:  // nesting, balanced or not, shallow or very deep
            nest(&bytes, &rng)
        case 88..<95:  // a piece of another record
            let other = rng.pick(corpus)
            guard !other.isEmpty else { return }
            let start = Int.random(in: 0..<other.count, using: &rng)
            let length = min(other.count - start, Int.random(in: 1...120, using: &rng))
            bytes.insert(contentsOf: other[start..<(start + length)], at: interestingPosition(bytes, &rng) ?? position())
        default:  // letter case, digits
            guard !bytes.isEmpty else { return }
            let i = Int.random(in: 0..<bytes.count, using: &rng)
            let c = bytes[i]
            if (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A { bytes[i] = c ^ 0x20 } else if c >= 0x30 && c <= 0x39 { bytes[i] = UInt8.random(in: 0x30...0x39, using: &rng) } else { bytes[i] = rng.pick(Array("-.eE+0ZT:".utf8)) }
        }
    }

    /// A position just after a structural byte (`{ [ , : "`), where a token
    /// changes the meaning rather than only the text; nil now and then.
    static func interestingPosition(_ bytes: [UInt8], _ rng: inout SplitMix64) -> Int? {
        guard !bytes.isEmpty, rng.chance(0.6) else { return nil }
        for _ in 0..<8 {
            let i = Int.random(in: 0..<bytes.count, using: &rng)
            switch bytes[i] {
            case 0x7B, 0x5B, 0x2C, 0x3A, 0x22, 0x5C: return i + 1
            default: continue
            }
        }
        return nil
    }

    static func insertMember(_ bytes: inout [UInt8], _ rng: inout SplitMix64) {
        let member = Array(rng.pick(members).utf8)
        let opens = bytes.indices.filter { bytes[$0] == 0x7B }
        let closes = bytes.indices.filter { bytes[$0] == 0x7D }
        if rng.chance(0.5), let open = opens.isEmpty ? nil : rng.pick(opens) {
            let empty = open + 1 < bytes.count && bytes[open + 1] == 0x7D
            bytes.insert(contentsOf: member + (empty ? [] : [0x2C]), at: open + 1)
        } else if let close = closes.isEmpty ? nil : rng.pick(closes) {
            let empty = close > 0 && bytes[close - 1] == 0x7B
            bytes.insert(contentsOf: (empty ? [] : [0x2C]) + member, at: close)
        }
    }

    /// The end of the JSON value starting at `start` (a rough scan: strings,
    /// balanced brackets, or a scalar up to `, } ]`).
    static func valueEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var i = start
        while i < bytes.count, bytes[i] == 0x20 { i += 1 }
        guard i < bytes.count else { return i }
        switch bytes[i] {
        case 0x22:
            i += 1
            while i < bytes.count, bytes[i] != 0x22 { i += bytes[i] == 0x5C ? 2 : 1 }
            return min(i + 1, bytes.count)
        case 0x7B, 0x5B:
            var depth = 0
            var inString = false
            while i < bytes.count {
                let c = bytes[i]
                if inString {
                    if c == 0x5C { i += 1 } else if c == 0x22 { inString = false }
                } else if c == 0x22 {
                    inString = true
                } else if c == 0x7B || c == 0x5B {
                    depth += 1
                } else if c == 0x7D || c == 0x5D {
                    depth -= 1
                    if depth == 0 { return i + 1 }
                }
                i += 1
            }
            return bytes.count
        default:
            while i < bytes.count, ![0x2C, 0x7D, 0x5D].contains(bytes[i]) { i += 1 }
            return i
        }
    }

    static func replaceValue(_ bytes: inout [UInt8], _ rng: inout SplitMix64) {
        let colons = bytes.indices.filter { bytes[$0] == 0x3A }
        guard !colons.isEmpty else { return }
        let start = rng.pick(colons) + 1
        let end = valueEnd(bytes, from: start)
        bytes.replaceSubrange(start..<end, with: Array(rng.pick(values).utf8))
    }

    static func nest(_ bytes: inout [UInt8], _ rng: inout SplitMix64) {
        let depths = [1, 2, 3, 50, 509, 510, 511, 512, 513, 600]
        let depth = rng.chance(0.03) ? rng.pick([10_000, 100_000]) : rng.pick(depths)
        let starts = bytes.indices.filter { bytes[$0] == 0x3A || bytes[$0] == 0x5B }
        let start = starts.isEmpty ? 0 : rng.pick(starts) + 1
        let end = valueEnd(bytes, from: start)
        let object = rng.chance(0.3)
        let open: [UInt8] = object ? Array(#"{"k":"#.utf8) : [0x5B]
        let close: [UInt8] = object ? [0x7D] : [0x5D]
        let balanced = rng.chance(0.7)
        var closing: [UInt8] = []
        if balanced { for _ in 0..<depth { closing += close } }
        bytes.insert(contentsOf: closing, at: end)
        var opening: [UInt8] = []
        opening.reserveCapacity(depth * open.count)
        for _ in 0..<depth { opening += open }
        bytes.insert(contentsOf: opening, at: start)
    }
}

// MARK: - Reference (document) mapping and the streaming mapper

/// One thing a mapper writes for an input line: a record, an error record
/// passed through, or a failure.
enum MappedOutcome: Equatable, CustomStringConvertible {
    case record(String)
    case passed(String, ErrorKind)
    case failure(ErrorRecord)

    var description: String {
        switch self {
        case let .record(text): return text
        case let .passed(text, kind): return "passed(\(kind.rawValue)) \(text)"
        case let .failure(error): return "ERROR \(error.kind.rawValue) \(error.located)"
        }
    }

    var isFailure: Bool { if case .failure = self { return true } else { return false } }
}

/// Collects what the streaming mapper writes.
final class FuzzSink: MappedRecordSink {
    var pending: [String] = []
    var outcomes: [MappedOutcome] = []

    func items(_ lines: UnsafeRawBufferPointer) {
        XCTAssertEqual(lines.last, 0x0A, "records come whole, each with its newline")
        pending += lines.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
    }
    func commit() { outcomes += pending.map(MappedOutcome.record); pending = [] }
    func discard() { pending = [] }
    func passThrough(_ line: ArraySlice<UInt8>, kind: ErrorKind) { outcomes.append(.passed(String(decoding: line, as: UTF8.self), kind)) }
    func fail(_ error: ErrorRecord) { outcomes.append(.failure(error)) }
}

enum FuzzMapping {
    static func records(_ kind: StreamingResponseMapper.Kind, _ response: Response) throws(ErrorRecord) -> [MappedOutcome] {
        var writer = JSONWriter()
        switch kind {
        case .feed:
            return try FeedItemsMapper.map(response).map { writer.reset(); $0.write(to: &writer); return .record(String(decoding: writer.bytes, as: UTF8.self)) }
        case .comments:
            return try ImageCommentsMapper.map(response).map { writer.reset(); $0.write(to: &writer); return .record(String(decoding: writer.bytes, as: UTF8.self)) }
        }
    }

    /// What the document mappers give for one line (without its newline),
    /// as the tools did before they streamed: parse the line, pass error
    /// records through, map a response record.
    static func reference(line: ArraySlice<UInt8>, number: Int, kind: StreamingResponseMapper.Kind) -> [MappedOutcome] {
        do throws(ErrorRecord) {
            let document = try RecordLine.parse(line, lineNumber: number)
            if let errorKind = RecordKind.errorKind(of: document) {
                return [.passed(String(decoding: trimmedTrailingBlanks(line), as: UTF8.self), errorKind)]
            }
            do throws(ErrorRecord) {
                return try records(kind, try Response(record: document))
            } catch {
                return [.failure(error.on(line: number))]
            }
        } catch {
            return [.failure(error)]
        }
    }

    /// The reference for a whole NDJSON stream: lines split at each newline
    /// (one trailing carriage return removed), blank lines counted and
    /// skipped, a last line without its newline truncated.
    static func reference(stream bytes: [UInt8], kind: StreamingResponseMapper.Kind) -> [MappedOutcome] {
        func isBlank(_ line: ArraySlice<UInt8>) -> Bool { line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D } }
        var out: [MappedOutcome] = []
        var start = 0
        var number = 0
        while let newline = bytes[start...].firstIndex(of: 0x0A) {
            number += 1
            var line = bytes[start..<newline]
            if line.last == 0x0D { line = line.dropLast() }
            start = newline + 1
            if !isBlank(line) { out += reference(line: line, number: number, kind: kind) }
        }
        if start < bytes.count, !isBlank(bytes[start...]) {
            out.append(.failure(RecordLine.truncated(lineNumber: number + 1)))
        }
        return out
    }

    /// The reference for a bare payload (`--raw`): one status-200 response.
    static func reference(payload: [UInt8], kind: StreamingResponseMapper.Kind) -> [MappedOutcome] {
        do throws(ErrorRecord) {
            return try records(kind, Response(url: nil, status: 200, body: .bytes(payload)))
        } catch {
            return [.failure(error.on(line: 0))]
        }
    }

    /// What `StreamingResponseMapper` writes for a stream, read in chunks.
    static func streaming(_ bytes: [UInt8], kind: StreamingResponseMapper.Kind, raw: Bool, sourceChunk: Int, readerChunk: Int) -> (outcomes: [MappedOutcome], thrown: ErrorRecord?) {
        var reader = JSONStreamReader(source: ArrayByteSource(bytes, chunkSize: sourceChunk), chunkSize: readerChunk)
        let sink = FuzzSink()
        var mapper = StreamingResponseMapper(kind: kind)
        do throws(ErrorRecord) {
            if raw { try mapper.mapDocument(&reader, into: sink) } else { try mapper.mapLines(&reader, into: sink) }
            return (sink.outcomes, nil)
        } catch {
            return (sink.outcomes, error)
        }
    }

    static func trimmedTrailingBlanks(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var end = line.endIndex
        while end > line.startIndex, [0x20, 0x09, 0x0D].contains(line[end - 1]) { end -= 1 }
        return line[line.startIndex..<end]
    }
}

// MARK: - Bookkeeping

/// The figures of one target, failures reported with everything needed to
/// reproduce them (at most `maxReported` XCTFails per target; all are counted).
final class FuzzRun {
    let target: String
    let settings: FuzzSettings
    let file: StaticString
    let line: UInt
    var inputs = 0
    var accepted = 0
    var rejected = 0
    var failures = 0
    var slowest: Double = 0
    var slowestIndex = -1
    var totalSeconds: Double = 0
    var notes: [String: Int] = [:]
    private let maxReported = 10
    private let started = DispatchTime.now().uptimeNanoseconds

    init(target: String, settings: FuzzSettings = .current, file: StaticString = #filePath, line: UInt = #line) {
        self.target = target
        self.settings = settings
        self.file = file
        self.line = line
        print("fuzz: target \(target): seed \(settings.seedText), \(settings.iterations) iterations")
    }

    /// Runs `body` on input `index`, timing it against `limit` seconds.
    func attempt(_ index: Int, _ input: [UInt8], limit: Double = 5, _ body: () -> Void) {
        if let dump = settings.dumpPath {
            _ = FileManager.default.createFile(atPath: dump, contents: Data(input))
        }
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        inputs += 1
        if seconds > slowest { slowest = seconds; slowestIndex = index }
        let limit = limit * settings.slowdown
        if seconds > limit {
            fail(index, input, "took \(String(format: "%.2f", seconds)) s (limit \(limit) s): a hang")
            notes["hangs", default: 0] += 1
        }
    }

    func fail(_ index: Int, _ input: [UInt8], _ what: String) {
        failures += 1
        guard failures <= maxReported else { return }
        XCTFail("fuzz target \(target), seed \(settings.seedText), input #\(index) (\(input.count) bytes): \(what)\n  input: \(FuzzRun.describe(input))", file: file, line: line)
    }

    /// The first few examples of each note, printed with the figures.
    var examples: [String: [String]] = [:]

    func note(_ name: String, example: @autoclosure () -> String? = nil) {
        notes[name, default: 0] += 1
        if examples[name, default: []].count < 3, let text = example() { examples[name, default: []].append(text) }
    }

    /// Prints the figures and appends them to FEED_FUZZ_REPORT.
    func finish() {
        totalSeconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let extra = notes.keys.sorted().map { " \($0)=\(notes[$0]!)" }.joined()
        let summary = "fuzz target=\(target) seed=\(settings.seedText) inputs=\(inputs) accepted=\(accepted) rejected=\(rejected) failures=\(failures)"
            + " slowest_ms=\(Int(slowest * 1000)) slowest_input=\(slowestIndex) seconds=\(String(format: "%.1f", totalSeconds))\(extra)"
        print(summary)
        for name in examples.keys.sorted() {
            for text in examples[name]! { print("  \(name): \(text)") }
        }
        if let path = settings.reportPath {
            if let handle = FileHandle(forWritingAtPath: path) ?? {
                _ = FileManager.default.createFile(atPath: path, contents: nil)
                return FileHandle(forWritingAtPath: path)
            }() {
                handle.seekToEndOfFile()
                handle.write(Data((summary + "\n").utf8))
                handle.closeFile()
            }
        }
    }

    /// Printable ASCII as is, everything else as \xNN; long inputs cut in the middle.
    static func describe(_ bytes: [UInt8]) -> String {
        func text<C: Collection>(_ part: C) -> String where C.Element == UInt8 {
            part.map { c in
                if c == 0x5C { return "\\\\" }
                if c >= 0x20 && c < 0x7F { return String(UnicodeScalar(c)) }
                return "\\x" + (c < 16 ? "0" : "") + String(c, radix: 16, uppercase: true)
            }.joined()
        }
        if bytes.count <= 600 { return "\"" + text(bytes) + "\"" }
        return "\"" + text(bytes.prefix(300)) + "\" … \(bytes.count - 600) bytes … \"" + text(bytes.suffix(300)) + "\""
    }
}
