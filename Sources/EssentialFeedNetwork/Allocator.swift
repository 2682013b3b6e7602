import CCurl

/// The process's allocator, as a client making many large responses wants it.
public enum Allocator {
    /// Keeps the memory of a freed body or record for the next one. glibc
    /// gives each block past 128 KiB (an image's body, its record) a mapping
    /// of its own and unmaps it when it is freed, so the next image faults
    /// its pages in again: page faults took 23% of feed-fetch's time for 100
    /// images of 200 KiB from nginx, and the whole run 1.15x as long. Blocks
    /// up to `largest` bytes come from the heap instead, which keeps up to
    /// `keptFree` bytes free. And one heap for every thread: a body is kept
    /// by libcurl's thread and its record made by another, and with an arena
    /// each, every thread warmed memory of its own (3,100 page faults for
    /// those 100 images, 1,700 with one; 0.93-0.97x the time, 2-3 MiB less
    /// at the peak; farm-bench, pairs of runs). Called once, by the
    /// composition root, before any thread starts.
    public static func keepFreedBlocks(upTo largest: Int = 2 << 20, keptFree: Int = 4 << 20) {
        feed_malloc_keep_blocks(Int32(clamping: largest), Int32(clamping: keptFree))
    }
}
