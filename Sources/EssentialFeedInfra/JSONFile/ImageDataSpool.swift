import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The image data a transaction stores, until it commits: in memory up to
/// 4 MiB, the rest in an unlinked temporary file beside the store, so that
/// memory holds one image at a time whatever their number.
final class ImageDataSpool {
    private enum Entry {
        case memory([UInt8])
        case file(offset: Int, count: Int)
    }

    private var entries: [String: Entry] = [:]
    private var memoryBytes = 0
    private var fd: Int32 = -1
    private var fileSize = 0
    private let directory: String
    private let path: String
    static let memoryLimit = 4 << 20

    init(directory: String, path: String) {
        self.directory = directory
        self.path = path
    }

    var urls: [String] { Array(entries.keys) }

    func discard() {
        if fd >= 0 { close(fd) }
        fd = -1
        entries = [:]
    }

    func put(_ data: [UInt8], for url: String) throws(ErrorRecord) {
        if case .memory(let old)? = entries[url] { memoryBytes -= old.count }
        if memoryBytes + data.count <= Self.memoryLimit {
            entries[url] = .memory(data)
            memoryBytes += data.count
            return
        }
        if fd < 0 { fd = try POSIXFiles.unlinkedTemporaryFile(in: directory, name: ".feed-cache-data", path: path) }
        var done = 0
        while done < data.count {
            let n = data.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, $0.count - done, off_t(fileSize + done)) }
            if n > 0 { done += n } else if n < 0 && errno == EINTR { continue } else { throw POSIXFiles.failure("write", path, n < 0 ? errno : EIO) }
        }
        entries[url] = .file(offset: fileSize, count: data.count)
        fileSize += data.count
    }

    func data(for url: String) throws(ErrorRecord) -> [UInt8]? {
        switch entries[url] {
        case nil: return nil
        case .memory(let data)?: return data
        case let .file(offset, count)?:
            var data = [UInt8](repeating: 0, count: count)
            var done = 0
            while done < count {
                let n = data.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(offset + done)) }
                if n > 0 { done += n } else if n < 0 && errno == EINTR { continue } else { throw POSIXFiles.failure("read", path, n < 0 ? errno : EIO) }
            }
            return data
        }
    }
}
