import EssentialFeed
import EssentialFeedInfra
import FeedCLI
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
    let wait: Double
    let policy: FeedCachePolicy
    let now: Timestamp

    private func openStore() throws(ErrorRecord) -> any FeedStore {
        try FeedStores.open(path: path, wait: wait, temporaryFiles: InterruptCleanup.shared)
    }

    /// Whether anything exists at the store path: commands that only delete
    /// do nothing, and create nothing, when it does not.
    private var storeExists: Bool { access(path, F_OK) == 0 }

    private func loader() throws(ErrorRecord) -> LocalFeedLoader {
        let now = self.now
        return LocalFeedLoader(store: try openStore(), policy: policy, currentDate: { now })
    }

    /// Reads standard input to the end: the feed image records and their
    /// lines, or nil when an error record or invalid line was met (each already
    /// reported or passed through).
    private func readFeed() -> (images: [FeedImage], lines: [[UInt8]])? {
        tool.refuseTerminalInput()
        var images: [FeedImage] = []
        var lines: [[UInt8]] = []
        var ids = Set<UUID>()
        var clean = true
        tool.forEachLine { line, number, truncated in
            guard let document = tool.parseRecord(line, number, truncated) else { clean = false; return }
            if let kind = RecordKind.errorKind(of: document) {
                tool.output.line(line)
                tool.record(kind)
                clean = false
                return
            }
            do throws(ErrorRecord) {
                let image = try FeedImage(record: document)
                // A feed holds each image once: the first record of an id wins.
                guard ids.insert(image.id).inserted else {
                    tool.diagnostics.debug("save: stdin:\(number): id \(image.id.canonicalString) already read; skipped")
                    return
                }
                images.append(image)
                lines.append(Array(line))
            } catch {
                tool.fail(ErrorRecord(.invalidData, "stdin:\(number): \(error.message)"))
                clean = false
            }
        }
        return clean ? (images, lines) : nil
    }

    func save(append: Bool, tee: Bool, allowEmpty: Bool) {
        guard let (images, lines) = readFeed() else {
            tool.diagnostics.info("save: cache unchanged: the input had errors")
            return
        }
        if images.isEmpty && !allowEmpty {
            tool.diagnostics.info("save: no records on input: cache unchanged (--allow-empty saves an empty feed)")
            return
        }
        do throws(ErrorRecord) {
            let loader = try loader()
            if append {
                let result = try loader.append(images)
                tool.diagnostics.info("save --append: kept \(result.kept), added \(result.added), dropped \(result.droppedExpired) expired")
            } else {
                try loader.save(images)
                tool.diagnostics.info("save: \(images.count) items saved to \(path)")
            }
        } catch {
            if tee {
                for line in lines { tool.output.line(line) }
                tool.diagnostics.error(error.message)
                tool.record(error.kind)
            } else {
                tool.fail(error)
            }
            return
        }
        if tee { for line in lines { tool.output.line(line) } }
    }

    func load() {
        do throws(ErrorRecord) {
            switch try loader().load() {
            case let .found(cached):
                for image in cached.feed { tool.output.record { image.write(to: &$0) } }
            case .empty:
                tool.fail(ErrorRecord(.notFound, "nothing cached in \(path)"))
            case let .expired(cached):
                tool.fail(ErrorRecord(.notFound, "the cache in \(path) expired at \(policy.expiry(of: cached.timestamp).iso8601)"))
            }
        } catch {
            tool.fail(error)
        }
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
            tool.output.record { info.write(to: &$0, now: now, policy: policy) }
        } catch {
            tool.fail(error)
        }
    }

    /// Stores every valid image response read, in one transaction at the end.
    /// Each image stands alone: an invalid response or an error record is
    /// reported and skipped, the others are stored. An invalid or truncated
    /// line stores nothing (the input cannot be trusted).
    func saveImages() {
        tool.refuseTerminalInput()
        var entries: [(url: String, data: [UInt8])] = []
        var trusted = true
        tool.forEachLine { line, number, truncated in
            guard let document = tool.parseRecord(line, number, truncated) else { trusted = false; return }
            if let kind = RecordKind.errorKind(of: document) {
                tool.output.line(line)
                tool.record(kind)
                return
            }
            do throws(ErrorRecord) {
                let response = try Response(record: document)
                guard let url = response.url else { throw ErrorRecord(.invalidData, "image response has no url") }
                let data = try ImageDataMapper.map(response)
                entries.append((url, data))
            } catch {
                tool.fail(ErrorRecord(error.kind, "stdin:\(number): \(error.message)", context: error.context))
            }
        }
        guard trusted else {
            tool.diagnostics.info("save-images: nothing stored: the input had invalid lines")
            return
        }
        do throws(ErrorRecord) {
            try LocalFeedImageDataLoader(store: try openStore()).save(entries)
            tool.diagnostics.debug("save-images: stored \(entries.count) images in \(path)")
        } catch {
            tool.fail(error)
        }
    }

    func image(_ url: String) {
        do throws(ErrorRecord) {
            guard let data = try LocalFeedImageDataLoader(store: try openStore()).loadImageData(for: url) else {
                tool.diagnostics.debug("image data miss: \(url)")
                tool.diagnostics.error("no image data cached for \(url)")
                tool.record(.notFound)
                return
            }
            tool.diagnostics.debug("image data hit: \(url) (\(data.count) bytes)")
            tool.output.raw(data)
        } catch {
            tool.diagnostics.error(error.message)
            tool.record(error.kind)
        }
    }

    /// Streams feed image records to request records for the images not cached.
    func missingImages() {
        tool.refuseTerminalInput()
        var cached: Set<String>
        do throws(ErrorRecord) {
            cached = try openStore().cachedImageDataURLs()
        } catch {
            tool.fail(error)
            return
        }
        tool.forEachRecord { document, number in
            do throws(ErrorRecord) {
                let image = try FeedImage(record: document)
                if cached.insert(image.url).inserted {
                    tool.diagnostics.debug("image data miss: \(image.url)")
                    tool.output.record { $0.beginObject(); $0.member("url", image.url); $0.endObject() }
                } else {
                    tool.diagnostics.debug("image data hit: \(image.url)")
                }
            } catch {
                tool.fail(ErrorRecord(.invalidData, "stdin:\(number): \(error.message)"))
            }
        }
    }
}

/// Removes a store's temporary file when SIGINT or SIGTERM ends the process
/// while the file may exist.
final class InterruptCleanup: TemporaryFiles, @unchecked Sendable {
    static let shared = InterruptCleanup()

    func mayCreate(_ path: String) -> Int {
        Signals.onInterrupt { _ = unlink(path) }
    }

    func done(_ token: Int) {
        Signals.remove(token)
    }
}
