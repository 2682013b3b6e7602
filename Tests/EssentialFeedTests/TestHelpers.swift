import Foundation
import XCTest
import EssentialFeed

/// Parses `text`, failing the test (and rethrowing) when it is not valid JSON.
func parseJSON(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> JSONDocument {
    do {
        return try JSONParser.parse(text)
    } catch {
        XCTFail("expected valid JSON, got \(error) for \(text.debugDescription)", file: file, line: line)
        throw error
    }
}

/// Parses `bytes`, failing the test (and rethrowing) when they are not valid JSON.
func parseJSON(bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws -> JSONDocument {
    do {
        return try JSONParser.parse(bytes)
    } catch {
        XCTFail("expected valid JSON, got \(error) for bytes \(bytes)", file: file, line: line)
        throw error
    }
}

/// The syntax error parsing `bytes` throws, or nil (and a test failure) when they parse.
@discardableResult
func syntaxError(bytes: [UInt8], maxDepth: Int = JSONParser.defaultMaxDepth,
                 file: StaticString = #filePath, line: UInt = #line) -> JSONSyntaxError? {
    do {
        _ = try JSONParser.parse(bytes, maxDepth: maxDepth)
        XCTFail("expected a syntax error for bytes \(bytes.prefix(64))", file: file, line: line)
        return nil
    } catch {
        return error
    }
}

/// The syntax error parsing `text` throws, or nil (and a test failure) when it parses.
@discardableResult
func syntaxError(_ text: String, maxDepth: Int = JSONParser.defaultMaxDepth,
                 file: StaticString = #filePath, line: UInt = #line) -> JSONSyntaxError? {
    do {
        _ = try JSONParser.parse(text, maxDepth: maxDepth)
        XCTFail("expected a syntax error for \(text.prefix(64).debugDescription)", file: file, line: line)
        return nil
    } catch {
        return error
    }
}

/// Node `node` of `document` re-emitted compactly by `JSONWriter`.
func compact(_ document: JSONDocument, _ node: Int? = nil) -> String {
    var writer = JSONWriter()
    writer.value(document, node ?? document.root)
    return String(decoding: writer.bytes, as: UTF8.self)
}

/// What `build` writes, as a string.
func written(_ build: (inout JSONWriter) -> Void) -> String {
    var writer = JSONWriter()
    build(&writer)
    return String(decoding: writer.bytes, as: UTF8.self)
}

/// Whether two JSON values are equal: same kinds, decoded strings, number
/// texts, elements in order and members in order.
func jsonEqual(_ a: JSONDocument, _ x: Int, _ b: JSONDocument, _ y: Int) -> Bool {
    guard a.kind(x) == b.kind(y), a.count(x) == b.count(y) else { return false }
    switch a.kind(x) {
    case .null, .true, .false:
        return true
    case .number:
        return a.numberText(x) == b.numberText(y)
    case .string:
        return a.string(x) == b.string(y)
    case .array:
        return zip(a.elements(x), b.elements(y)).allSatisfy { jsonEqual(a, $0, b, $1) }
    case .object:
        return zip(a.keys(x), b.keys(y)).allSatisfy { jsonEqual(a, $0, b, $1) && jsonEqual(a, $0 + 1, b, $1 + 1) }
    }
}

/// A response whose body is the JSON text `json`, as `feed-fetch` would record it.
func jsonResponse(status: Int = 200, _ json: String, url: String? = "https://api.example.com/v1/feed",
                  file: StaticString = #filePath, line: UInt = #line) throws -> Response {
    let document = try parseJSON(json, file: file, line: line)
    return Response(url: url, status: status, body: .json(document, node: document.root))
}

/// A response whose body is the raw bytes of `text` (e.g. `--raw` or a base64 body).
func bytesResponse(status: Int = 200, _ text: String, url: String? = "https://api.example.com/v1/feed") -> Response {
    Response(url: url, status: status, body: .bytes(Array(text.utf8)))
}

/// The error record `body` throws, or nil (and a test failure) when it returns or throws something else.
func thrownRecord<T>(file: StaticString = #filePath, line: UInt = #line,
                     _ body: () throws -> T) -> ErrorRecord? {
    do {
        let value = try body()
        XCTFail("expected an error record, got \(value)", file: file, line: line)
        return nil
    } catch let record as ErrorRecord {
        return record
    } catch {
        XCTFail("expected an error record, got \(error)", file: file, line: line)
        return nil
    }
}

/// `body`'s result, failing the test (and rethrowing) when it throws.
func noRecord<T>(file: StaticString = #filePath, line: UInt = #line,
                 _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let record as ErrorRecord {
        XCTFail("unexpected error record: \(record.kind.rawValue): \(record.message)", file: file, line: line)
        throw record
    }
}

func uuid(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> UUID {
    guard let id = UUID(uuidString: text) else {
        XCTFail("bad UUID literal \(text)", file: file, line: line)
        return UUID()
    }
    return id
}

extension ErrorRecord {
    /// The message as the tools show it, after the input line it is about
    /// (`stdin:3: reason`, `stdin: reason` for a whole document).
    var located: String {
        guard let line else { return message }
        return (line == 0 ? "stdin: " : "stdin:\(line): ") + message
    }
}
