import EssentialFeed
import Foundation
import XCTest

/// Hostile input to the codec and the mappers: a deterministic mutation
/// fuzzer (SplitMix64, a fixed seed printed with every failure) seeded with
/// real records. For every input, in process:
///
/// - nothing crashes, and nothing takes longer than a bound (no hang);
/// - the stream reader accepts a line exactly when the tape parser does, and
///   reports the same error at the same byte;
/// - a document accepted is re-emitted by `JSONWriter` as text that parses
///   again to an equal document;
/// - the streaming mappers write exactly what the document mappers write:
///   the same records, or an `invalid_data` error naming the same line;
/// - every failure is `invalid_data` with a one-line message starting `stdin:`.
///
/// FEED_FUZZ_ITERATIONS (default 2000 per target), FEED_FUZZ_SEED,
/// FEED_FUZZ_BIG_LINE_MB (default 5), FEED_FUZZ_REPORT and FEED_FUZZ_DUMP
/// size and record a run (see FuzzSupport.swift; `scripts/stress` sets them).
final class FuzzTests: XCTestCase {
    private var settings: FuzzSettings { .current }
    private static let corpus = FuzzCorpus.all.map { Array($0.utf8) }
    private static let chunkSizes = [1, 2, 3, 5, 7, 8, 13, 64, 1000, 4096, 65_536]

    // MARK: The codec

    func test_fuzz_jsonCodec_streamReaderAcceptsWhatTheTapeParserAcceptsAndWriterOutputParsesEqual() {
        let run = FuzzRun(target: "json")
        for index in 0..<settings.iterations {
            var rng = SplitMix64.forInput(seed: settings.seed, target: run.target, index: index)
            var input = rng.pick(Self.corpus)
            if !rng.chance(0.03) { input = FuzzMutator.mutate(input, corpus: Self.corpus, rng: &rng) }
            input = Self.oneLine(input)
            let chunks = (rng.pick(Self.chunkSizes), rng.pick(Self.chunkSizes))
            let capture = rng.chance(0.5)
            run.attempt(index, input) { checkCodec(input, index, run, chunks, capture: capture) }
        }
        run.finish()
    }

    func test_fuzz_deepNesting_isRejectedAlikeByBothReadersAtEveryDepth() {
        let run = FuzzRun(target: "nesting")
        var index = 0
        for depth in [510, 511, 512, 513, 10_000, 100_000] {
            for (open, close) in [("[", "]"), (#"{"k":"#, "}")] {
                let opening = String(repeating: open, count: depth)
                let closing = String(repeating: close, count: depth)
                for text in [opening + closing, opening, opening + "1" + closing, "[" + opening + closing + "]",
                             #"{"status":200,"body":{"items":[],"x":"# + opening + closing + "}}",
                             #"{"status":200,"body":{"items":["# + opening + closing + "]}}"] {
                    let input = Array(text.utf8)
                    run.attempt(index, input) {
                        checkCodec(input, index, run, (65_536, 65_536), capture: true)
                        for kind in [StreamingResponseMapper.Kind.feed, .comments] {
                            checkMapper(input + [0x0A], kind: kind, raw: false, index: index, run: run, chunks: (4096, 65_536), counting: false)
                        }
                    }
                    index += 1
                }
            }
        }
        run.finish()
    }

    func test_fuzz_hugeLine_isReadAndMappedAlikeInBoundedTime() {
        let run = FuzzRun(target: "huge-line")
        let megabytes = max(1, settings.bigLineMegabytes)
        var line = Array(#"{"url":"http://h/v1/feed","status":200,"body":{"items":["#.utf8)
        line.reserveCapacity(megabytes << 20 + 4096)
        var n = 0
        while line.count < megabytes << 20 {
            if n > 0 { line.append(0x2C) }
            let id = String(format: "%08X-0000-4000-8000-%012X", n, n)
            line += Array(#"{"id":"\#(id)","description":"description \#(n) \u00e9 \ud83d\ude00 \"quoted\"","location":"location \#(n)","image":"https://images.example.com/\#(n).jpg"}"#.utf8)
            n += 1
        }
        line += Array("]}}".utf8)
        var rng = SplitMix64.forInput(seed: settings.seed, target: run.target, index: 0)
        var inputs: [[UInt8]] = [line]
        var flipped = line
        flipped[Int.random(in: 0..<line.count, using: &rng)] ^= 0x40
        inputs.append(flipped)
        inputs.append(Array(line[0..<Int.random(in: line.count / 2..<line.count, using: &rng)]))
        var badUTF8 = line
        badUTF8.insert(contentsOf: [0xED, 0xA0, 0x80], at: line.count - 100)
        inputs.append(badUTF8)
        var lateItemBad = line
        lateItemBad.replaceSubrange((line.count - 3)..<(line.count - 3), with: Array(#",{"id":"nope","image":"http://h"}"#.utf8))
        inputs.append(lateItemBad)
        inputs.append(Array(#"{"error":"connectivity","message":"a long error","padding":""#.utf8) + [UInt8](repeating: 0x61, count: megabytes << 20) + Array(#""}"#.utf8))
        let limit = 20.0 * Double(megabytes)  // generous for a debug build: the hang check, not a benchmark
        // The quick suite tries the whole line, a flipped bit and a huge error
        // record; a stress run (more than 5 MB) every variant.
        let chosen = megabytes > 5 ? Array(inputs.indices) : [0, 1, 5]
        for index in chosen {
            let input = inputs[index]
            let chunk = rng.pick([4096, 65_536])
            run.attempt(index, input, limit: limit) {
                let codec = index == 0 || megabytes > 5
                if codec { checkCodec(input, index, run, (65_536, 65_536), capture: false) }
                checkMapper(input + [0x0A], kind: .feed, raw: false, index: index, run: run, chunks: (chunk, 65_536), counting: !codec)
            }
        }
        run.finish()
    }

    // MARK: The mappers

    func test_fuzz_feedMapper_streamingWritesWhatTheDocumentMapperWrites() {
        fuzzMapper(.feed, target: "feed-map", seeds: FuzzCorpus.feedResponses + FuzzCorpus.feedResponses + FuzzCorpus.errorRecords + FuzzCorpus.commentsResponses)
    }

    func test_fuzz_commentsMapper_streamingWritesWhatTheDocumentMapperWrites() {
        fuzzMapper(.comments, target: "comments-map", seeds: FuzzCorpus.commentsResponses + FuzzCorpus.commentsResponses + FuzzCorpus.errorRecords + FuzzCorpus.feedResponses)
    }

    func test_fuzz_rawPayloads_streamingWritesWhatTheDocumentMapperWrites() {
        let run = FuzzRun(target: "raw")
        let payloads = FuzzCorpus.payloads.map { Array($0.utf8) }
        for index in 0..<settings.iterations {
            var rng = SplitMix64.forInput(seed: settings.seed, target: run.target, index: index)
            var input = rng.pick(payloads)
            if !rng.chance(0.03) { input = FuzzMutator.mutate(input, corpus: Self.corpus, rng: &rng) }
            if rng.chance(0.1) { input.insert(0x0A, at: Int.random(in: 0...input.count, using: &rng)) }
            let kind: StreamingResponseMapper.Kind = rng.chance(0.5) ? .feed : .comments
            let chunks = (rng.pick(Self.chunkSizes), rng.pick([16, 64, 65_536]))
            run.attempt(index, input) { checkMapper(input, kind: kind, raw: true, index: index, run: run, chunks: chunks) }
        }
        run.finish()
    }

    /// Several lines at once, some blank, some cut: the streaming mapper
    /// finds its way back to the next line after every error.
    func test_fuzz_ndjsonStreams_areMappedLineByLineAsTheDocumentMapperMapsThem() {
        let run = FuzzRun(target: "ndjson")
        let separators = ["\n", "\n", "\n", "\r\n", "\n\n", " \n", "\n\t \r\n"].map { Array($0.utf8) }
        for index in 0..<settings.iterations {
            var rng = SplitMix64.forInput(seed: settings.seed, target: run.target, index: index)
            var input: [UInt8] = []
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                var line = rng.pick(Self.corpus)
                if rng.chance(0.6) { line = FuzzMutator.mutate(line, corpus: Self.corpus, rng: &rng) }
                if rng.chance(0.05) { line.insert(0x0A, at: Int.random(in: 0...line.count, using: &rng)) }
                input += line + rng.pick(separators)
            }
            if rng.chance(0.15) { input.removeLast(Int.random(in: 1...min(3, input.count), using: &rng)) }
            let kind: StreamingResponseMapper.Kind = rng.chance(0.5) ? .feed : .comments
            let chunks = (rng.pick(Self.chunkSizes), rng.pick([16, 64, 65_536]))
            run.attempt(index, input) { checkMapper(input, kind: kind, raw: false, index: index, run: run, chunks: chunks) }
        }
        run.finish()
    }

    // MARK: Records read back (feed-cache save, feed-paginate, reldate, feed-view)

    func test_fuzz_feedImageRecords_areReadOrRejectedAsInvalidDataAndWrittenBackEqual() {
        let run = FuzzRun(target: "records")
        let seeds = (FuzzCorpus.feedImages + FuzzCorpus.feedImages + FuzzCorpus.errorRecords).map { Array($0.utf8) }
        for index in 0..<settings.iterations {
            var rng = SplitMix64.forInput(seed: settings.seed, target: run.target, index: index)
            var input = rng.pick(seeds)
            if !rng.chance(0.03) { input = FuzzMutator.mutate(input, corpus: Self.corpus, rng: &rng) }
            input = Self.oneLine(input)
            let dropKey = rng.pick(["id", "url", "description", "relative_date", "nope"])
            run.attempt(index, input) { checkRecord(input, index, run, dropKey: dropKey) }
        }
        run.finish()
    }

    // MARK: Findings, kept as regression tests

    /// Found by this fuzzer (fixed in 940b5a0): a number running to the very
    /// end of the stream, after a refill that moved the buffer, left the
    /// position past the data: wrong byte offsets, and `feed-map --raw` read
    /// stale bytes past the end until it crashed.
    func test_fuzzFinding_aNumberAtTheEndOfTheStream_isReportedAtTheEnd() {
        let payload = #"{"items":[],"x":0"#
        XCTAssertEqual(syntaxError(payload)?.description, "invalid JSON at byte 18: unexpected end: unterminated object")
        let raw = FuzzMapping.streaming(Array(payload.utf8), kind: .feed, raw: true, sourceChunk: 65_536, readerChunk: 65_536).outcomes
        XCTAssertEqual(raw.map(\.description), ["ERROR invalid_data stdin: invalid JSON at byte 18: unexpected end: unterminated object"])
        let lines = "{\"status\":200,\"body\":{\"items\":[]}}\n{\"status\":200,\"x\":12"
        let second = FuzzMapping.streaming(Array(lines.utf8), kind: .feed, raw: false, sourceChunk: 65_536, readerChunk: 65_536).outcomes
        // In NDJSON lines the cut line is said to be truncated (its offset is a document's only).
        XCTAssertEqual(second.map(\.description), ["ERROR invalid_data stdin:2: truncated line (no newline at end of input)"])
        let padded = Array((#"{"items":[],"x":["# + String(repeating: " ", count: 140_000) + "1").utf8)
        for (source, reader) in [(64, 16), (65_536, 65_536), (7, 64)] {
            let got = FuzzMapping.streaming(padded, kind: .feed, raw: true, sourceChunk: source, readerChunk: reader).outcomes
            XCTAssertEqual(got.map(\.description), ["ERROR invalid_data stdin: invalid JSON at byte 140019: unexpected end: unterminated array"], "chunks \(source), \(reader)")
        }
    }

    // MARK: Checks

    private static func oneLine(_ bytes: [UInt8]) -> [UInt8] { bytes.map { $0 == 0x0A ? 0x20 : $0 } }

    private func checkCodec(_ input: [UInt8], _ index: Int, _ run: FuzzRun, _ chunks: (Int, Int), capture: Bool) {
        let parsed: Result<JSONDocument, JSONSyntaxError>
        do { parsed = .success(try JSONParser.parse(input)) } catch { parsed = .failure(error) }

        var reader = JSONStreamReader(source: ArrayByteSource(input + [0x0A], chunkSize: chunks.0), chunkSize: max(16, chunks.1))
        var captured: [UInt8] = []
        var streamed: ErrorRecord?
        var blank = false
        do throws(ErrorRecord) {
            if try reader.startLine() {
                if capture { try reader.captureValue(into: &captured) } else { try reader.skipValue() }
                try reader.finishLine()
                if try reader.startLine() { run.fail(index, input, "the stream reader found a second line in one line") }
            } else {
                blank = true
            }
        } catch {
            streamed = error
        }

        checkDocumentMode(input, parsed, index, run, chunks)

        switch parsed {
        case let .failure(error):
            run.rejected += 1
            guard error.offset >= 0, error.offset <= input.count else {
                return run.fail(index, input, "syntax error offset \(error.offset) outside the input: \(error)")
            }
            if blank { return }
            guard let streamed else {
                return run.fail(index, input, "the stream reader accepts what the tape parser rejects (\(error))")
            }
            checkFailure(streamed, index, input, run)
            let expected = "stdin:1: \(error)"
            if streamed.located != expected {
                // At the end of the text the stream reader meets the newline
                // of the line instead: the same fault, named from there.
                if error.offset == input.count || error.reason.hasPrefix("unexpected end") {
                    run.note("message_differs_end_of_line", example: "tape: \(expected) | stream: \(streamed.located)")
                } else {
                    run.fail(index, input, "different syntax errors:\n  tape:   \(expected)\n  stream: \(streamed.located)")
                }
            }
        case let .success(document):
            run.accepted += 1
            if blank { return run.fail(index, input, "the tape parser accepts a blank line") }
            if let streamed { return run.fail(index, input, "the stream reader rejects what the tape parser accepts: \(streamed.located)") }
            checkReemitted(document, index, input, run)
            if capture {
                guard let again = try? JSONParser.parse(captured) else {
                    return run.fail(index, input, "captureValue wrote text that does not parse: \(FuzzRun.describe(captured))")
                }
                if !jsonEqual(document, document.root, again, again.root) {
                    run.fail(index, input, "captureValue wrote a different value: \(FuzzRun.describe(captured))")
                }
            }
        }
    }

    /// Read as a whole document (`--raw`: newlines are blanks, and the end of
    /// the text is the end of the stream), the stream reader must give exactly
    /// the tape parser's verdict and message.
    private func checkDocumentMode(_ input: [UInt8], _ parsed: Result<JSONDocument, JSONSyntaxError>, _ index: Int, _ run: FuzzRun, _ chunks: (Int, Int)) {
        var reader = JSONStreamReader(source: ArrayByteSource(input, chunkSize: chunks.0), chunkSize: max(16, chunks.1))
        reader.multiline = true
        var streamed: ErrorRecord?
        do throws(ErrorRecord) {
            try reader.skipValue()
            try reader.finishDocument()
        } catch {
            streamed = error
        }
        switch (parsed, streamed) {
        case (.success, nil):
            break
        case let (.success, streamed?):
            run.fail(index, input, "document mode: the stream reader rejects what the tape parser accepts: \(streamed.located)")
        case let (.failure(error), nil):
            run.fail(index, input, "document mode: the stream reader accepts what the tape parser rejects (\(error))")
        case let (.failure(error), streamed?):
            checkFailure(streamed, index, input, run)
            let expected = "stdin: \(error)"
            guard streamed.located != expected else { return }
            if streamed.located.hasPrefix("stdin: invalid JSON at byte \(error.offset + 1): unexpected end"), error.reason.hasPrefix("unexpected end") {
                // The same place, worded from the container ("unterminated array") rather than the value expected.
                run.note("message_differs_end_of_text_reason", example: "tape: \(expected) | stream: \(streamed.located)")
            } else {
                run.fail(index, input, "document mode: different syntax errors:\n  tape:   \(expected)\n  stream: \(streamed.located)")
            }
        }
    }

    /// `JSONWriter` output of an accepted document parses to an equal one,
    /// writing it again changes nothing, and every string decoded and written
    /// again by `JSONWriter.string` reads back the same.
    private func checkReemitted(_ document: JSONDocument, _ index: Int, _ input: [UInt8], _ run: FuzzRun) {
        var writer = JSONWriter()
        writer.value(document, document.root)
        let first = writer.bytes
        guard let again = try? JSONParser.parse(first) else {
            return run.fail(index, input, "JSONWriter wrote text that does not parse: \(FuzzRun.describe(first))")
        }
        guard jsonEqual(document, document.root, again, again.root) else {
            return run.fail(index, input, "JSONWriter wrote a different document: \(FuzzRun.describe(first))")
        }
        writer.reset()
        writer.value(again, again.root)
        if writer.bytes != first { run.fail(index, input, "writing the written document again changed it") }

        var stack = [document.root]
        var strings = 0
        while let node = stack.popLast(), strings < 64 {
            switch document.kind(node) {
            case .array: stack += document.elements(node)
            case .object: for key in document.keys(node) { stack += [key, key + 1] }
            case .number:
                _ = document.int(node)
                _ = document.numberText(node)
            case .string:
                strings += 1
                guard let text = document.string(node) else { return run.fail(index, input, "a string node without a string") }
                var w = JSONWriter()
                w.string(text)
                guard let back = try? JSONParser.parse(w.bytes), back.string(back.root) == text else {
                    return run.fail(index, input, "the string \(text.debugDescription) written as \(FuzzRun.describe(w.bytes)) does not read back")
                }
            default: break
            }
        }
    }

    private func fuzzMapper(_ kind: StreamingResponseMapper.Kind, target: String, seeds: [String]) {
        let run = FuzzRun(target: target)
        let seeds = seeds.map { Array($0.utf8) }
        for index in 0..<settings.iterations {
            var rng = SplitMix64.forInput(seed: settings.seed, target: run.target, index: index)
            var input = rng.pick(seeds)
            if !rng.chance(0.03) { input = FuzzMutator.mutate(input, corpus: Self.corpus, rng: &rng) }
            input = Self.oneLine(input)
            if rng.chance(0.05) { input += [0x0D] }
            let chunks = (rng.pick(Self.chunkSizes), rng.pick([16, 64, 65_536]))
            run.attempt(index, input) { checkMapper(input + [0x0A], kind: kind, raw: false, index: index, run: run, chunks: chunks) }
        }
        run.finish()
    }

    /// Compares the streaming mapper with the document mapper on `input`;
    /// counts it as accepted or rejected when `counting` (one count per input).
    private func checkMapper(_ input: [UInt8], kind: StreamingResponseMapper.Kind, raw: Bool, index: Int, run: FuzzRun, chunks: (Int, Int), counting: Bool = true) {
        let expected = raw ? FuzzMapping.reference(payload: input, kind: kind) : FuzzMapping.reference(stream: input, kind: kind)
        let (got, thrown) = FuzzMapping.streaming(input, kind: kind, raw: raw, sourceChunk: chunks.0, readerChunk: max(16, chunks.1))
        if let thrown { return run.fail(index, input, "the streaming mapper threw \(thrown.kind.rawValue): \(thrown.message)") }
        if counting {
            if expected.contains(where: \.isFailure) { run.rejected += 1 } else { run.accepted += 1 }
        }
        for outcome in got { if case let .failure(error) = outcome { checkFailure(error, index, input, run) } }
        for outcome in expected { if case let .failure(error) = outcome { checkFailure(error, index, input, run) } }

        if Self.same(expected, got) {
            for (want, have) in zip(expected, got) {
                if case let (.failure(a), .failure(b)) = (want, have), a.located != b.located {
                    let category = Self.messageDifference(a.located, b.located)
                    run.note(category, example: "document: \(a.located) | streaming: \(b.located) | input: \(FuzzRun.describe(Array(input.prefix(160))))")
                }
            }
            return
        }
        let mode = raw ? "raw \(kind)" : "\(kind)"
        run.fail(index, input, "\(mode): the streaming mapper differs from the document mapper (chunks \(chunks))\n  document:  \(Self.summary(expected))\n  streaming: \(Self.summary(got))")
    }

    /// The same records and pass-throughs, and failures of the same kind on the same lines.
    private static func same(_ expected: [MappedOutcome], _ got: [MappedOutcome]) -> Bool {
        expected.count == got.count && zip(expected, got).allSatisfy { want, have in
            switch (want, have) {
            case let (.record(a), .record(b)): return a == b
            case let (.passed(a, k), .passed(b, l)):
                // A line past the stream reader's keep limit (1 MiB) is passed on as a short error record of its kind.
                return k == l && (a == b || (a.utf8.count > 1 << 20 && b.contains("too long to pass through")))
            case let (.failure(a), .failure(b)):
                return a.kind == b.kind && a.line == b.line
            default: return false
            }
        }
    }

    /// Why the two mappers word a failure differently, in categories.
    private static func messageDifference(_ document: String, _ streaming: String) -> String {
        if document.contains("unexpected end") || document.contains("truncated line") || streaming.contains("byte 0x0A") {
            return "message_differs_end_of_line"  // the stream reader meets the newline; the document parser the end of the text
        }
        if document.replacingOccurrences(of: "body is not JSON: ", with: "") == streaming {
            return "message_differs_raw_body_is_not_json"  // --raw: the document mapper says "body is not JSON: …"
        }
        if streaming.hasSuffix("not a JSON object") { return "message_differs_not_an_object_first" }
        if streaming.hasSuffix("body_base64 is not base64") { return "message_differs_body_base64_first" }
        return "message_differs_other"
    }

    private func checkRecord(_ input: [UInt8], _ index: Int, _ run: FuzzRun, dropKey: String) {
        let document: JSONDocument
        do throws(ErrorRecord) {
            document = try RecordLine.parse(input[...], lineNumber: 1)
        } catch {
            run.rejected += 1
            return checkFailure(error, index, input, run)
        }
        guard RecordKind.errorKind(of: document) == nil else { run.accepted += 1; return }
        // Tools pass records on with the fields they do not know.
        var writer = JSONWriter()
        writer.beginObject()
        writer.members(of: document, document.root, excluding: [dropKey])
        writer.member("relative_date", "1 day ago")
        writer.endObject()
        guard let passed = try? JSONParser.parse(writer.bytes) else {
            return run.fail(index, input, "the record passed on does not parse: \(FuzzRun.describe(writer.bytes))")
        }
        let kept = document.keys(document.root).filter { document.string($0) != dropKey }
        let keys = Array(passed.keys(passed.root))
        guard keys.count == kept.count + 1,
              zip(kept, keys).allSatisfy({ jsonEqual(document, $0, passed, $1) && jsonEqual(document, $0 + 1, passed, $1 + 1) }) else {
            return run.fail(index, input, "the record passed on lost or changed fields: \(FuzzRun.describe(writer.bytes))")
        }

        let image: FeedImage
        do throws(ErrorRecord) {
            image = try FeedImage(record: document)
        } catch {
            run.rejected += 1
            return checkFailure(error.on(line: 1), index, input, run)
        }
        run.accepted += 1
        writer.reset()
        image.write(to: &writer)
        let written = writer.bytes
        do throws(ErrorRecord) {
            let back = try FeedImage(record: try RecordLine.parse(written[...], lineNumber: 1))
            if back != image { run.fail(index, input, "the feed image written as \(FuzzRun.describe(written)) reads back as another") }
            writer.reset()
            back.write(to: &writer)
            if writer.bytes != written { run.fail(index, input, "writing a feed image read back changes it") }
        } catch {
            run.fail(index, input, "the feed image written as \(FuzzRun.describe(written)) does not read back: \(error.message)")
        }
    }

    /// Every failure of a filter's input: `invalid_data`, one line, naming `stdin`.
    private func checkFailure(_ error: ErrorRecord, _ index: Int, _ input: [UInt8], _ run: FuzzRun) {
        if error.kind != .invalidData {
            run.fail(index, input, "a failure of kind \(error.kind.rawValue), not invalid_data: \(error.message)")
        } else if error.line == nil {
            run.fail(index, input, "a failure that names no input line: \(error.message.debugDescription)")
        } else if error.message.contains(where: { $0.isNewline }) {
            run.fail(index, input, "a message of more than one line: \(error.message.debugDescription)")
        }
    }

    private static func summary(_ outcomes: [MappedOutcome]) -> String {
        outcomes.isEmpty ? "nothing" : outcomes.map { String($0.description.prefix(300)) }.joined(separator: "\n             ")
    }
}

/// Differences between the streaming mapper (which feed-map and comments-map
/// run) and the document mappers (the reference) that this fuzzer found,
/// fixed and kept as regression tests. Each test states what the reference
/// does; the comments say what the streaming mapper did before the fix.
final class FuzzFindingTests: XCTestCase {
    private func streamed(_ line: String, _ kind: StreamingResponseMapper.Kind = .feed) -> [MappedOutcome] {
        FuzzMapping.streaming(Array((line + "\n").utf8), kind: kind, raw: false, sourceChunk: 65_536, readerChunk: 65_536).outcomes
    }

    private func reference(_ line: String, _ kind: StreamingResponseMapper.Kind = .feed) -> [MappedOutcome] {
        FuzzMapping.reference(line: Array(line.utf8)[...], number: 1, kind: kind)
    }

    /// With duplicate keys the last one wins (JSONDocument, jq): status 500 decides.
    func test_streamingMapper_withADuplicateStatusAfterTheBody_usesTheLastStatus() {
        let line = #"{"status":200,"body":{"items":[]},"status":500}"#
        XCTAssertEqual(reference(line).map(\.description), ["ERROR invalid_data stdin:1: feed response status 500 is not 200"])
        XCTAssertEqual(streamed(line), reference(line))  // it wrote nothing and exited 0
        let reversed = #"{"status":500,"body":{"items":[]},"status":200}"#
        XCTAssertEqual(reference(reversed), [])
        XCTAssertEqual(streamed(reversed), reference(reversed))  // it said status 500 is not 200
    }

    /// Error records travel down the pipe unchanged, whatever fields they carry.
    func test_streamingMapper_passesAnErrorRecordWithABadBodyBase64FieldThrough() {
        let line = #"{"error":"not_found","message":"m","body_base64":"!!"}"#
        XCTAssertEqual(reference(line), [.passed(line, .notFound)])
        XCTAssertEqual(streamed(line), reference(line))  // it said invalid_data "body_base64 is not base64", exit 65
    }

    /// `body` decides when a record has both `body` and `body_base64` (Response(record:)).
    func test_streamingMapper_withBodyAndBodyBase64_mapsTheBody() {
        let invalid = #"{"status":200,"body":{"items":[]},"body_base64":"!!"}"#
        XCTAssertEqual(streamed(invalid), reference(invalid))  // it said body_base64 is not base64
        let other = #"{"status":200,"body":{"items":[{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","image":"http://h/0"}]},"body_base64":"eyJpdGVtcyI6W119"}"#
        XCTAssertEqual(reference(other).count, 1)
        XCTAssertEqual(streamed(other), reference(other))  // it wrote nothing (the base64 body, no items)
    }

    /// With duplicate `body_base64` keys the last one wins.
    func test_streamingMapper_withDuplicateBodyBase64_usesTheLast() {
        let line = #"{"status":200,"body_base64":"!!","body_base64":"eyJpdGVtcyI6W119"}"#
        XCTAssertEqual(streamed(line), reference(line))  // it said body_base64 is not base64
    }

    /// A body before its status streams too: its records wait for the status.
    func test_streamingMapper_withTheStatusAfterTheBody_holdsTheRecordsUntilTheStatus() {
        let items = #"{"items":[{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","image":"http://h/0"}]}"#
        for status in ["200", "201", "500", "\"200\"", "2000"] {
            let line = #"{"body":"# + items + #","status":"# + status + "}"
            XCTAssertEqual(streamed(line), reference(line), line)
            XCTAssertEqual(streamed(line, .comments), reference(line, .comments), line)
        }
        let noStatus = #"{"body":"# + items + "}"
        XCTAssertEqual(streamed(noStatus).map(\.description), ["ERROR invalid_data stdin:1: not a response record: no status"])
    }

    /// Comments accept 200 through 299: the last status decides there too.
    func test_streamingMapper_comments_withDuplicateStatuses_usesTheLastStatus() {
        let item = #"{"id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0","message":"m","created_at":"2020-05-20T11:24:59Z","author":{"username":"u"}}"#
        for (first, last) in [("201", "300"), ("300", "299"), ("204", "200"), ("\"x\"", "200"), ("200", "null")] {
            let line = #"{"status":"# + first + #","body":{"items":["# + item + #"]},"status":"# + last + "}"
            XCTAssertEqual(streamed(line, .comments), reference(line, .comments), line)
        }
    }

    /// A `body_base64` that is not a string, or undecodable with a bad status,
    /// is named as the reference names it; a status outside the mapper's range
    /// is named after a good one.
    func test_streamingMapper_bodyBase64Messages_areTheReferenceMessages() {
        for line in [
            #"{"status":200,"body_base64":5}"#,
            #"{"status":500,"body_base64":"!!"}"#,
            #"{"status":500,"body_base64":"eyJpdGVtcyI6W119"}"#,
            #"{"body_base64":"eyJpdGVtcyI6W119","status":200,"url":"http://h/x"}"#,
            #"{"body_base64":"e30=","status":200}"#,
            #"{"body_base64":"\u0065\u0033\u0030\u003d","status":200}"#,
            #"{"status":200,"body_base64":"eyJpdGVtcyI6W119","error":"busy"}"#,
        ] {
            XCTAssertEqual(streamed(line).map(\.description), reference(line).map(\.description), line)
        }
    }
}
