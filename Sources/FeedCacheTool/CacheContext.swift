import EssentialFeed
import EssentialFeedInfra
import FeedCLI
import Sandbox
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The commands of feed-cache, composed from the core use cases and the store.
struct CacheContext {
    let tool: Tool
    let path: String
    /// The store as messages show it (a PostgreSQL URI's passwords hidden).
    var shown: String { FeedStores.shown(path) }
    /// Why no store path could be named (no HOME), for the commands that
    /// go on without a store (`save --tee`, `fallback`): opening the store
    /// fails with it.
    var unnamed: ErrorRecord? = nil
    let wait: Double
    let policy: FeedCachePolicy
    /// The time, read when a command needs it: once the store's lock is
    /// held (for a save of up to 1 MiB, after its input has ended). Read
    /// once at the start, a save that waited on a slow pipe was stamped with
    /// the moment it started, and a load that waited on a lock judged the
    /// feed's age then (found by the hunt). `--now` gives the same time at
    /// every reading.
    let now: @Sendable () -> Timestamp
    /// Opens a PostgreSQL store (the executable with libpq gives it).
    let postgreSQL: FeedCacheTool.PostgreSQLStore?

    /// What `command` may touch once confined (see essential-feed(7)): a
    /// file store's folder (made first for the commands that create the
    /// store), the temporary folder, and `image --output`'s folder; for a
    /// PostgreSQL store, a client's (`SandboxRules.connecting`) and libpq's
    /// own files, writing only in the temporary folder and `image --output`'s
    /// folder. Never a program.
    func sandboxRules(command: String, output: String?) -> SandboxRules {
        var rules = SandboxRules.base(environment: tool.environment)
        if unnamed != nil { return rules }
        if FeedStores.isPostgreSQL(path) {
            // libpq's own files: passwords, services, client certificates, Kerberos.
            let environment = tool.environment
            rules = .connecting(environment: environment)
            // libpq 15 finds its home folder in the password database, not
            // HOME (under sudo or systemd the two differ): both are allowed.
            for home in Set([environment["HOME"], FeedStores.passwordHome].compactMap { $0 }.filter { !$0.isEmpty }) {
                let folder = home.hasSuffix("/") ? home : home + "/"
                rules.readable += [folder + ".pgpass", folder + ".pg_service.conf", folder + ".postgresql"]
            }
            rules.readable += ["/etc/postgresql-common", "/etc/krb5.conf"]
            rules.readable += FeedStores.serviceFolders.dropFirst().map { $0 + "/pg_service.conf" }
            rules.readable += ["PGPASSFILE", "PGSERVICEFILE", "PGSYSCONFDIR", "PGSSLROOTCERT", "PGSSLCERT", "PGSSLKEY", "PGSSLCRL", "PGSSLCRLDIR", "KRB5_CONFIG"]
                .compactMap { environment[$0] }.filter { !$0.isEmpty }
            // And those the URI's own parameters name (`passfile=`,
            // `sslrootcert=`, ...): libpq could not read them, and a store that
            // psql reached was "no password supplied" (found by the hunt).
            rules.readable += FeedStores.filesNamed(byPostgreSQLURI: path)
            rules.readable += FeedStores.filesNamedByService(of: path, environment: environment)
        } else {
            if command == "save" || command == "save-images" { FeedStores.prepareFolder(of: path) }
            rules.writable.append(FeedStores.folder(of: path))
            // Run as root, SQLite and the JSON store give the store's new
            // files to the store's owner: to that owner alone.
            var status = stat()
            if stat(path, &status) == 0 || stat(FeedStores.folder(of: path), &status) == 0 {
                rules.owners.append(SandboxRules.Owner(user: status.st_uid, group: status.st_gid))
            }
            // SQLite's randomness (temporary names; without it, the time and
            // the pid) and its temporary files.
            rules.readable.append("/dev/urandom")
            if let folder = FeedStores.sqliteTemporaryFolder(environment: tool.environment) { rules.writable.append(folder) }
        }
        // Whatever the store (a PostgreSQL store's wrote only in $TMPDIR).
        if let output, output != "-" {
            rules.writable.append(FeedStores.folder(of: output))
            // The file replaced keeps its owner, as root gives it back.
            var status = stat()
            if stat(output, &status) == 0 { rules.owners.append(SandboxRules.Owner(user: status.st_uid, group: status.st_gid)) }
        }
        return rules
    }

    private func openStore() throws(ErrorRecord) -> any FeedStore {
        if let unnamed { throw unnamed }
        if FeedStores.isPostgreSQL(path), let postgreSQL { return postgreSQL(path, wait) }
        return try FeedStores.open(path: path, wait: wait, temporaryFiles: InterruptCleanup.shared)
    }

    /// Whether anything exists at the store path (in a database: the store's
    /// schema): commands that only delete do nothing, and create nothing,
    /// when it does not. A database that cannot be reached is for the
    /// command to report.
    private var storeExists: Bool {
        guard FeedStores.isPostgreSQL(path) else { return access(path, F_OK) == 0 }
        return (try? openStore().info().exists) ?? true
    }

    private func loader() throws(ErrorRecord) -> LocalFeedLoader {
        LocalFeedLoader(store: try openStore(), policy: policy, currentDate: now)
    }

    /// How many bytes of records a save reads before it opens the store: a
    /// feed that fits is saved in a transaction that never waits for its input
    /// (the store stays free for others while a slow pipe trickles in); a
    /// larger one streams into the open transaction, so memory stays bounded.
    static let readAheadBytes = 1 << 20

    /// Saves the feed image records read, in one transaction, as they come;
    /// an error record or an invalid line anywhere rolls it back.
    /// How a save treats the cached feed.
    enum SaveMode {
        /// Replace it.
        case replace
        /// Keep it and add the new ids after it.
        case append
        /// Save the input as a page that starts after an image (nil: at the
        /// head), keeping what it does not cover (`LocalFeedLoader.merge`).
        case merge(after: UUID?)
    }

    /// - Parameters:
    ///   - pageLimit: with `merge`, the limit the page was asked for with
    ///     (a page of fewer records, but some, ends the feed).
    ///   - ifUnchanged: with `merge`, the cached feed is read when the
    ///     command starts, before its input (in a pipe, as its page is
    ///     asked for); when the store holds another at the commit, it is
    ///     kept as it is.
    func save(_ mode: SaveMode, tee: Bool, allowEmpty: Bool, pageLimit: Int? = nil, ifUnchanged: Bool = false) {
        tool.refuseTerminalInput()
        // The stamp of the feed the page is for, read before any input; a
        // store that cannot be read fails the save once (not a second
        // connection's wait), its records written on with --tee.
        var ifSavedAt: CachedFeedStamp?
        var unread: ErrorRecord?
        if ifUnchanged {
            do throws(ErrorRecord) {
                let header = try openStore().read { (reader) throws(ErrorRecord) in try reader.retrieveHeader() }
                ifSavedAt = header.map { .savedAt($0.timestamp) } ?? .nothingCached
            } catch {
                unread = error
            }
        }
        let input = SaveInput(tool: tool, tee: tee)
        let read = input.readAhead(bytes: Self.readAheadBytes)
        if input.rejected {
            input.drain()
            tool.diagnostics.info("save: cache unchanged: the input had errors")
            return
        }
        if read == 0 && input.ended, let page = input.page, page.isNotModified {
            // Only a first page is asked for with validators: a 304 for a
            // page after an item confirms nothing (it re-stamped the whole
            // feed, and feed-sync took it for the feed's end).
            if case .merge(after: .some) = mode {
                return tool.fail(ErrorRecord(.invalidData, "the server answered 304 Not Modified for a page after an item, which is asked for without validators: cache unchanged",
                                             context: [.init("url", page.url)]))
            }
            return confirm(page, tee: tee ? input : nil)
        }
        if read == 0 && input.ended && !allowEmpty {
            tool.diagnostics.info("save: no records on input: cache unchanged (--allow-empty saves an empty feed)")
            return
        }
        do throws(ErrorRecord) {
            if let unread { throw unread }
            let loader = try loader()
            switch mode {
            case .append:
                let result = try loader.append(reading: input.next)
                tool.diagnostics.info("save --append: kept \(result.kept), added \(result.added), dropped \(result.droppedExpired) expired")
            case let .merge(after):
                let result = try loader.merge(reading: input.next, after: after, pageLimit: pageLimit, ifSavedAt: ifSavedAt,
                                              validators: { input.page.flatMap { $0.isNotModified ? nil : FeedValidators($0) } })
                if let found = result.declined {
                    // The page was not read: read now, checked as a save
                    // checks it, and written on (with --tee) unless invalid.
                    input.readToEndForTee()
                    if input.rejected {
                        tool.diagnostics.info("save: cache unchanged: the input had errors")
                        return
                    }
                    tool.diagnostics.info("save --merge: cache unchanged: another save came first (the cached feed is \(Self.described(found)), not \(ifSavedAt.map(Self.described) ?? ""))")
                } else {
                    let end = result.droppedAfter > 0 ? ", dropped \(result.droppedAfter) after the page (shorter than \(pageLimit ?? 0): the end of the feed)" : ""
                    tool.diagnostics.info("save --merge: \(counted(result.saved, "item")) of the page saved into \(shown) in place of \(result.replaced) cached; kept \(result.ahead) ahead and \(result.after) after, dropped \(result.droppedExpired) expired\(end)")
                }
            case .replace:
                // The first page's validators, for the next conditional request.
                let result = try loader.save(reading: input.next, validators: { input.page.flatMap { $0.isNotModified ? nil : FeedValidators($0) } })
                tool.diagnostics.info("save: \(counted(result.saved, "item")) saved to \(shown)")
            }
        } catch where input.rejected {
            // The input's own failure, already reported: the save rolled back.
            input.drain()
            tool.diagnostics.info("save: cache unchanged: the input had errors")
            return
        } catch {
            if tee {
                input.readToEndForTee()
                if !input.rejected { input.writeOn() }
                tool.diagnostics.error(error.message)
                tool.record(error.kind)
            } else {
                tool.fail(error)
                input.drain()
            }
            return
        }
        if tee { input.writeOn() }
    }

    /// A stamp, for a message.
    static func described(_ stamp: CachedFeedStamp) -> String {
        switch stamp {
        case .nothingCached: "none"
        case let .savedAt(time): "the one saved at \(time.iso8601)"
        }
    }

    /// A 304 to a conditional request: the cached feed is current. It is
    /// stamped with the current time and keeps the validators the 304 gave.
    private func confirm(_ page: PageRecord, tee: SaveInput?) {
        do throws(ErrorRecord) {
            // Nothing to confirm where there is no store: none is made for it.
            let outcome = storeExists ? try loader().notModified(url: page.url, validators: FeedValidators(page)) : .nothingCached
            let context = [ErrorRecord.Field("url", page.url)]
            switch outcome {
            case let .confirmed(header):
                tool.diagnostics.info("save: not modified: the cached feed (\(counted(header.count, "item"))) confirmed at \(header.timestamp.iso8601)")
                tee?.writeOn()
            case .nothingCached:
                tool.fail(ErrorRecord(.notFound, "the server answered 304 Not Modified, but nothing is cached to keep", context: context))
            case .unasked:
                tool.fail(ErrorRecord(.invalidData, "the server answered 304 Not Modified to a request without validators (the cache keeps none for this page): cache unchanged",
                                      context: context))
            case .otherValidator:
                tool.fail(ErrorRecord(.invalidData, "the server answered 304 Not Modified with other validators than the cached feed's: cache unchanged",
                                      context: context))
            }
        } catch {
            tool.fail(error)
        }
    }

    /// Request records on, those for the cached feed's page with its validators.
    func conditional() {
        tool.refuseTerminalInput()
        var validators: FeedValidators?
        if storeExists {
            do throws(ErrorRecord) {
                validators = try loader().validators()
            } catch {
                // Without validators the requests go as they are; the store's trouble is for save to report.
                tool.diagnostics.info("conditional: no validators: \(error.message)")
            }
        }
        tool.forEachRecord { document, number in
            guard let url = document.member(document.root, "url").flatMap(document.string) else {
                tool.fail(ErrorRecord(.invalidData, "not a request record: no url", line: number))
                return
            }
            // The page is kept with its password shown as *** (as every
            // record shows one), the request has it.
            guard let validators, Secrets.redactURL(validators.url) == Secrets.redactURL(url) else {
                tool.output.record { $0.beginObject(); $0.members(of: document, document.root); $0.endObject() }
                return
            }
            tool.diagnostics.debug("conditional: \(Secrets.redact(url)) with the cached feed's validators")
            tool.output.record {
                $0.beginObject()
                $0.members(of: document, document.root, excluding: ["if_none_match", "if_modified_since"])
                $0.member("if_none_match", validators.etag)
                $0.member("if_modified_since", validators.lastModified)
                $0.endObject()
            }
        }
    }

    /// Writes the cached feed, each record made straight from the store's row
    /// (memory stays bounded whatever the feed's size). When standard output
    /// can stall (a pipe, a socket, a terminal), the records go through a
    /// spool (memory up to 2 MiB, twice while one is written, then an unlinked temporary file) and are
    /// written once the read transaction is over, so that a slow downstream
    /// never keeps the store's writers waiting; a damaged item then writes its
    /// error record alone. To a file or `/dev/null` they are written as the
    /// rows are read.
    func load(images: Bool = false, cachedAt: Bool = false) {
        let failure = images || cachedAt ? writeCachedFeedForView(images: images, cachedAt: cachedAt) : writeCachedFeed()
        if let failure { tool.fail(failure) }
    }

    /// What a load found, as the failure to report: none when the feed was found.
    private func failure(of summary: FeedCacheLoadSummary) -> ErrorRecord? {
        switch summary {
        case .found: nil
        case .empty: ErrorRecord(.notFound, "nothing cached in \(shown)")
        case let .expired(cached): ErrorRecord(.notFound, "the cache in \(shown) expired at \(policy.expiry(of: cached.timestamp).iso8601)")
        }
    }

    /// The url of a feed image record this tool wrote.
    private static func url(of line: ArraySlice<UInt8>) -> String? {
        guard let document = try? RecordLine.parse(line, lineNumber: 0) else { return nil }
        return document.member(document.root, "url").flatMap { document.string($0) }
    }

    /// Writes the valid cached feed (see `load`) with what a view needs added
    /// to each record: when the cache first had its image (`first_cached_at`),
    /// its image's stored data (`image_data_base64`, when there is some) and
    /// when the feed was cached (`cached_at`). The records
    /// wait in a spool while the store lends them; their data is then read in
    /// the same read transaction. Memory holds one image's data at a time.
    private func writeCachedFeedForView(images: Bool, cachedAt: Bool) -> ErrorRecord? {
        var record: [UInt8] = []
        let kept = Spool(name: "feed-cache", environment: tool.environment, memoryLimit: 2 << 20)
        let later = Self.outputCanStall ? Spool(name: "feed-cache", environment: tool.environment, memoryLimit: 2 << 20) : nil
        let output = tool.output
        do throws(ErrorRecord) {
            let summary = try loader().load(visiting: { (image) throws(ErrorRecord) in
                record.removeAll(keepingCapacity: true)
                image.appendRecord(to: &record)
                if cachedAt, let firstCached = image.firstCached {
                    record.removeLast()  // its closing brace
                    record.append(contentsOf: #","\#(FeedImageRecordFields.firstCachedAt)":""#.utf8)
                    Timestamp(seconds: firstCached).appendISO8601(to: &record)
                    record.append(contentsOf: #""}"#.utf8)
                }
                try kept.append(line: record)
            }, afterwards: { (header, imageData) throws(ErrorRecord) in
                var stamp: [UInt8] = []
                header.timestamp.appendISO8601(to: &stamp)
                try kept.forEachLine { (line) throws(ErrorRecord) in
                    record.removeAll(keepingCapacity: true)
                    record.append(contentsOf: line.dropLast())  // its closing brace
                    if images, let url = Self.url(of: line) {
                        if let data = try imageData(url), !data.isEmpty {
                            tool.diagnostics.debug("image data hit: \(Secrets.redact(url)) (\(counted(data.count, "byte")))")
                            record.append(contentsOf: #","\#(FeedImageRecordFields.imageData)":""#.utf8)
                            record.append(contentsOf: Base64.encode(data).utf8)
                            record.append(UInt8(ascii: "\""))
                        } else {
                            tool.diagnostics.debug("image data miss: \(Secrets.redact(url))")
                        }
                    }
                    if cachedAt {
                        record.append(contentsOf: #","\#(FeedImageRecordFields.cachedAt)":""#.utf8)
                        record.append(contentsOf: stamp)
                        record.append(UInt8(ascii: "\""))
                    }
                    record.append(UInt8(ascii: "}"))
                    if let later { try later.append(line: record) } else { output.line(record) }
                }
            })
            if let failure = failure(of: summary) { return failure }
            try later?.write(to: output)
            return nil
        } catch {
            return error
        }
    }

    /// Writes the valid cached feed (see `load`); the failure, unreported,
    /// when there is none to write.
    private func writeCachedFeed() -> ErrorRecord? {
        var record: [UInt8] = []
        record.reserveCapacity(1024)
        let spool = Self.outputCanStall ? Spool(name: "feed-cache", environment: tool.environment, memoryLimit: 2 << 20) : nil
        let output = tool.output
        do throws(ErrorRecord) {
            let summary = try loader().load { (image) throws(ErrorRecord) in
                record.removeAll(keepingCapacity: true)
                image.appendRecord(to: &record)
                if let spool { try spool.append(line: record) } else { output.line(record) }
            }
            if let failure = failure(of: summary) { return failure }
            try spool?.write(to: output)
            return nil
        } catch {
            return error
        }
    }

    /// The fallback of a load: passes a whole, valid feed on unchanged;
    /// when its input failed (an error record, an invalid line, a record
    /// that is not a feed image), writes the valid cached feed instead, and
    /// with none, writes the input's failures on and exits with the first
    /// one's status. Nothing is written until the input has ended. A whole
    /// feed that cannot be kept to be written on (no room for the spool)
    /// is this tool's failure: the cached feed is written instead, if any.
    func fallback() {
        tool.refuseTerminalInput()
        let kept = Spool(name: "feed-cache", environment: tool.environment, memoryLimit: 1 << 20)
        /// The input's failures, in order: error records read, and those of invalid lines.
        var failures: [(line: [UInt8], kind: ErrorKind, own: ErrorRecord?)] = []
        /// Why the input's lines could not be kept, if so.
        var keepFailure: ErrorRecord?
        /// A page record of a 304: the cached feed is current, and is what to write.
        var notModified = false
        tool.forEachLine { line, number, truncated in
            var problem: ErrorRecord?
            if truncated {
                problem = RecordLine.truncated(lineNumber: number)
            } else {
                do throws(ErrorRecord) {
                    let document = try RecordLine.parse(line, lineNumber: number)
                    if let kind = RecordKind.errorKind(of: document) {
                        failures.append((Array(line), kind, nil))
                        return
                    }
                    if RecordKind.isPage(document) {
                        if PageRecord(document)?.isNotModified == true { notModified = true }
                        return
                    }
                    _ = try FeedImage(record: document)
                } catch {
                    problem = error.on(line: number)
                }
            }
            if let problem {
                failures.append(([], problem.kind, problem))
                return
            }
            guard failures.isEmpty, keepFailure == nil else { return }
            do throws(ErrorRecord) {
                try kept.append(line: line)
            } catch {
                keepFailure = error
            }
        }
        if failures.isEmpty && keepFailure == nil && !(notModified && kept.isEmpty) {
            do throws(ErrorRecord) { try kept.write(to: tool.output) } catch { tool.fail(error) }
            return
        }
        if failures.isEmpty && notModified {
            if let unavailable = writeCachedFeed() { return tool.fail(unavailable) }
            tool.diagnostics.info("fallback: not modified: wrote the cached feed from \(shown)")
            return
        }
        if failures.isEmpty, let keepFailure {
            if let unavailable = writeCachedFeed() {
                // Nothing cached is the usual case; a store that cannot be read is worth a line.
                let said = "fallback: no cached feed to write instead: \(unavailable.message)"
                if unavailable.kind == .notFound { tool.diagnostics.info(said) } else { tool.diagnostics.error(said) }
                return tool.fail(keepFailure)
            }
            tool.diagnostics.error("fallback: \(keepFailure.message): wrote the cached feed from \(shown) instead")
            return tool.record(keepFailure.kind)
        }
        // The input failed (`failures` is not empty from here on).
        let reason = failures[0].own?.message ?? "an error record"
        guard let unavailable = writeCachedFeed() else {
            tool.diagnostics.info("fallback: the input failed (\(reason)): wrote the cached feed from \(shown)")
            return
        }
        // Nothing cached is the usual case; a store that cannot be read (a database out of reach) is worth a line.
        let said = "fallback: the input failed and there is no cached feed to write: \(unavailable.message)"
        if unavailable.kind == .notFound { tool.diagnostics.info(said) } else { tool.diagnostics.error(said) }
        for failure in failures {
            if let own = failure.own {
                tool.fail(own)
            } else {
                tool.passOn(errorRecord: failure.line[...], kind: failure.kind)
            }
        }
    }

    /// Whether writing standard output may wait for a reader: anything but a
    /// regular file or a device that is not a terminal (`/dev/null`).
    private static var outputCanStall: Bool {
        var st = stat()
        guard fstat(1, &st) == 0 else { return true }
        let type = st.st_mode & S_IFMT
        if type == S_IFREG { return false }
        if type == S_IFCHR { return isatty(1) == 1 }
        return true
    }

    func validate() {
        guard storeExists else { return }
        do throws(ErrorRecord) {
            switch try loader().validateCache() {
            case .empty, .valid: break
            case let .deletedExpired(cached):
                tool.diagnostics.info("validate: deleted the feed saved at \(cached.timestamp.iso8601): expired")
            case let .deletedUnreadable(error):
                tool.diagnostics.info("validate: deleted an unreadable cache: \(error.message)")
            }
        } catch {
            tool.fail(error)
        }
    }

    func delete() {
        guard storeExists else { return }
        do throws(ErrorRecord) {
            try openStore().deleteCachedFeed()
        } catch {
            tool.fail(error)
        }
    }

    func info() {
        do throws(ErrorRecord) {
            let info = try openStore().info()
            tool.output.record { info.write(to: &$0, now: now(), policy: policy) }
        } catch {
            tool.fail(error)
        }
    }

    /// How many bytes of image data `save-images` reads before it opens the
    /// store: images that fit are stored in a transaction that never waits
    /// for its input; past that, they stream into the open transaction.
    static let imageReadAheadBytes = 1 << 20

    /// A batch of `save-images` is committed once it has taken this long
    /// (nanoseconds) or holds `imageBatchBytes` of data.
    static let imageBatchNanoseconds: UInt64 = 1_000_000_000
    static let imageBatchBytes = 16 << 20

    /// Stores every valid image response read, in transactions of a batch
    /// each: a second's worth or 16 MiB of data, whole or not at all. A run
    /// stopped (a timeout, a signal) or a disk that fills keeps the batches
    /// stored before: in one transaction, the whole step stored nothing,
    /// and every run downloaded every image again and never got through a
    /// backlog longer than its time limit (found by the hunt). The JSON
    /// store, which rewrites its whole file at each commit, commits a batch
    /// once it holds as many bytes as the file (so the rewrites add up to a
    /// few times what is stored). Each image stands alone: an invalid
    /// response or an error record is reported and skipped, the others are
    /// stored. An invalid or truncated line stores nothing of its batch and
    /// ends the storing (the input cannot be trusted). Images are held one at
    /// a time once past the read-ahead: memory is bounded by the largest
    /// image, not their sum.
    func saveImages() {
        tool.refuseTerminalInput()
        let input = ImageInput(tool: tool)
        var ahead: [(url: String, data: [UInt8])] = []
        var held = 0
        while held < Self.imageReadAheadBytes, let entry = input.next() {
            if input.trusted { ahead.append(entry) }
            held += entry.data.count + entry.url.utf8.count + 64
        }
        if input.ended && (ahead.isEmpty || !input.trusted) {
            if !input.trusted { tool.diagnostics.info("save-images: nothing stored: the input had invalid lines") }
            return
        }
        var stored = 0
        do throws(ErrorRecord) {
            var index = 0
            let loader = LocalFeedImageDataLoader(store: try openStore())
            // The JSON store's batch: at least as many bytes as its file
            // holds, read again after each commit (so that each rewrite at
            // least doubles what is stored, and they add up to a few times
            // the whole: a fixed bound made them grow as the square of a
            // backlog, found in review).
            let rewritesWhole = !FeedStores.isPostgreSQL(path) && FeedStores.kind(forPath: path) == .json
            func fileSize() -> Int {
                var status = stat()
                return rewritesWhole && stat(path, &status) == 0 ? Int(status.st_size) : 0
            }
            var least = fileSize()
            var ended = false
            // The first image of the next batch, read before its transaction
            // opens: none opens for nothing (the JSON store reads and
            // rewrites its whole file for each).
            var carried: (url: String, data: [UInt8])?
            func nextTrusted() throws(ErrorRecord) -> (url: String, data: [UInt8])? {
                while let entry = input.next() {
                    if input.trusted { return entry }
                }
                if !input.trusted { throw ErrorRecord(.invalidData, "the input had invalid lines") }
                return nil
            }
            while true {
                // From the batch's first image.
                var began: UInt64 = 0
                var bytes = 0
                func taken(_ entry: (url: String, data: [UInt8])) -> (url: String, data: [UInt8]) {
                    if bytes == 0 { began = DispatchTime.now().uptimeNanoseconds }
                    bytes += entry.data.count + 1
                    return entry
                }
                stored += try loader.save { () throws(ErrorRecord) -> (url: String, data: [UInt8])? in
                    if bytes > 0, bytes >= least,
                       bytes >= Self.imageBatchBytes || DispatchTime.now().uptimeNanoseconds - began >= Self.imageBatchNanoseconds {
                        return nil
                    }
                    if let entry = carried {
                        carried = nil
                        return taken(entry)
                    }
                    if index < ahead.count {
                        defer { index += 1 }
                        let entry = ahead[index]
                        ahead[index].data = []
                        return taken(entry)
                    }
                    if !ahead.isEmpty { ahead = [] }
                    guard let entry = try nextTrusted() else {
                        ended = true
                        return nil
                    }
                    return taken(entry)
                }
                if ended { break }
                tool.diagnostics.debug("save-images: committed \(counted(stored, "image")) so far")
                least = fileSize()
                if index >= ahead.count {
                    ahead = []
                    guard let entry = try nextTrusted() else { break }
                    carried = entry
                }
            }
            tool.diagnostics.debug("save-images: stored \(counted(stored, "image")) in \(shown)")
        } catch where !input.trusted {
            // The invalid lines are already reported: the batch rolled back.
            tool.diagnostics.info("save-images: " + (stored == 0 ? "nothing stored" : "\(counted(stored, "image")) stored before") + ": the input had invalid lines")
        } catch {
            if stored > 0 { tool.diagnostics.info("save-images: \(counted(stored, "image")) stored before the failure") }
            tool.fail(error)
            input.drain()
        }
    }

    /// Writes the data stored for `url` to standard output, or to `output`
    /// (`-`: standard output, even a terminal). Binary data is never written
    /// to a terminal unasked: escape sequences in it would drive it (as curl).
    func image(_ url: String, output: String?) {
        if output == nil, Descriptor.isTerminal(1) {
            tool.usageError("image data is binary and standard output is a terminal: redirect it, or give --output - (or --output FILE)")
        }
        // The store itself is no place for an image.
        var target = stat(), store = stat()
        if let output, output != "-", stat(output, &target) == 0, stat(path, &store) == 0,
           target.st_dev == store.st_dev, target.st_ino == store.st_ino {
            tool.usageError("--output \(output) is the store itself")
        }
        do throws(ErrorRecord) {
            guard let data = try LocalFeedImageDataLoader(store: try openStore()).loadImageData(for: url) else {
                tool.diagnostics.debug("image data miss: \(url)")
                tool.diagnostics.error("no image data cached for \(url)")
                tool.record(.notFound)
                return
            }
            tool.diagnostics.debug("image data hit: \(url) (\(counted(data.count, "byte")))")
            if let output, output != "-" {
                // Whole or not at all: a full disk leaves the file as it was.
                try POSIXFiles.replaceAtomically(output, with: data, temporaryFiles: InterruptCleanup.shared)
            } else {
                tool.output.raw(data)
            }
        } catch {
            tool.diagnostics.error(error.message)
            tool.record(error.kind)
        }
    }

    /// Streams feed image records to request records for the images not cached.
    func missingImages() {
        tool.refuseTerminalInput()
        var cached: Set<ExactText>
        do throws(ErrorRecord) {
            cached = try openStore().cachedImageDataURLs()
        } catch {
            tool.fail(error)
            return
        }
        tool.forEachRecord { document, number in
            if RecordKind.isPage(document) { return }
            do throws(ErrorRecord) {
                let image = try FeedImage(record: document)
                // Only an http(s) URL is a request feed-fetch makes: one of
                // another scheme (javascript:, data:) was asked for, refused,
                // and the images' step failed 65 on every run (found by the hunt).
                guard Identifiers.isHTTPURL(image.url) else {
                    tool.diagnostics.debug("image data not fetched, not an http(s) URL a client can use: \(Secrets.redactURL(image.url))")
                    return
                }
                if cached.insert(ExactText(LocalFeedImageDataLoader.key(image.url))).inserted {
                    tool.diagnostics.debug("image data miss: \(image.url)")
                    tool.output.record { $0.beginObject(); $0.member("url", image.url); $0.endObject() }
                } else {
                    tool.diagnostics.debug("image data hit: \(image.url)")
                }
            } catch {
                tool.fail(error.on(line: number))
            }
        }
    }
}
