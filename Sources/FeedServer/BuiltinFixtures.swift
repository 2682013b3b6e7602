import Foundation

public extension FeedServerFixtures {
    /// The names of the built-in fixture sets, for ``builtin(named:)``.
    static let builtinNames = ["demo", "acceptance"]

    /// A built-in fixture set by name (`demo` or `acceptance`), nil for any other.
    static func builtin(named name: String) -> FeedServerFixtures? {
        switch name {
        case "demo": demo
        case "acceptance": acceptance
        default: nil
        }
    }

    /// Twelve feed items with realistic text (some without a description,
    /// some without a location, one with neither; non-ASCII, quotes and a
    /// line break included), images `{{base}}/image-N.png` served as small
    /// generated PNGs, and comments for several images (image 3 has none).
    /// Built into the binary: no files are needed at run time.
    static var demo: FeedServerFixtures {
        let entries: [(id: String, description: String?, location: String?)] = [
            ("A9496121-E218-466E-9685-E7A6C8DA9AD4", "Sunrise over the harbour, the first ferries already crossing.", "Sydney Harbour\nNew South Wales, Australia"),
            ("ABABB489-3AD0-4D14-8864-0AFF6A059C0A", "Garden tour: a walk through the oldest botanical garden in Europe.", "Orto Botanico\nPadova, Italy"),
            ("563D6786-73F2-4793-A4CB-B065BC9124D8", nil, "Cape Town, South Africa"),
            ("1445A083-B272-4F10-A101-473769708068", "Fog rolling in over the bridge at dusk.", nil),
            ("680284F9-11A5-4BB4-8A46-7BEEEDF2F5E2", nil, nil),
            ("005C98B9-A27F-4346-B029-2B7080AD2B32", "Street food stalls at the night market, steam and neon everywhere.", "Shilin Night Market, Taipei, Taiwan"),
            ("DBD73219-6380-41F6-8478-B30C05B394F4", "The old lighthouse, still working after 150 years.", "Peggy's Cove, Nova Scotia, Canada"),
            ("6C23BC48-C92F-43BC-BB63-C4F878D32AD0", nil, "Reykjavík, Iceland"),
            ("14E6B8F1-8F9F-492A-BEBA-C8A0D6D25519", "Morning swim in the lake. Cold, but worth it.", "Lake Bled, Slovenia"),
            ("6EFB56B0-69E7-4DB5-8564-B5B6BE89E4EA", #"Rainy afternoon in the old town: "worth every drop"."#, "Praha, Česko"),
            ("26FF379B-CA54-4BE4-96C3-A0B2F1A2271C", "Autumn colours along the canal.", nil),
            ("556C26E4-6A0F-478E-825B-61996B14FD4F", "Snow on the ridge at first light, before the lifts open.", "Zermatt, Switzerland"),
        ]
        var fixtures = FeedServerFixtures()
        for (index, entry) in entries.enumerated() {
            let name = "image-\(index).png"
            fixtures.feed.append(FeedItem(id: entry.id, description: entry.description, location: entry.location, image: "{{base}}/\(name)"))
            fixtures.images[name] = TinyPNG.swatch(index: index)
        }

        let comments: [(image: Int, id: String, message: String, createdAt: String, username: String)] = [
            (0, "7DCC550B-835D-46DE-AA14-C5EDE102F183", "What a view! Which ferry is that?", "2020-05-20T11:24:59+0000", "ana"),
            (0, "5381A75E-341C-4FCC-BD82-BBD07CA998C4", "The Manly ferry, I think.", "2020-05-19T08:02:11+0000", "bruno"),
            (0, "3D32DA0C-18BC-4EA9-B9B7-5BCC6F0DE047", "Been there last year, the light is always like this.", "2020-05-01T18:45:00+0000", "chen.li"),
            (1, "0F30C106-38AD-49EF-A6D4-E5A7FE440AEC", "Adding it to my list.", "2020-06-02T09:15:30+0000", "dmitri"),
            (2, "1ACB583D-1E33-4106-8D56-C6085F7CF22A", "Table Mountain in the clouds again 😄", "2020-07-14T16:20:05+0000", "emma_w"),
            (2, "BBD32592-E073-4E58-8440-724A98698C37", "Gorgeous.", "2019-12-31T23:59:59+0000", "ana"),
            (5, "B0FE2300-22AA-4440-85DC-DAC57748A280", "Try the pepper buns!", "2021-01-09T12:00:00+0000", "chen.li"),
            (5, "D0AA0626-1DC0-4104-BE5B-87C7A884E08B", "Now I'm hungry.", "2021-01-10T07:30:42+0000", "bruno"),
            (9, "D7A262D7-5FD6-4A6F-BCAD-20F7DD7E1573", "Krásné! The bridge at night is even better.", "2022-03-03T20:10:10+0000", "dmitri"),
        ]
        for comment in comments {
            let image = UUID(uuidString: entries[comment.image].id)!
            fixtures.comments[image, default: []].append(
                Comment(id: comment.id, message: comment.message, createdAt: comment.createdAt, username: comment.username)
            )
        }
        return fixtures
    }

    /// The case study's acceptance fixture: three feed items with images
    /// `{{base}}/image-0`…`image-2` (tiny PNGs), and one comment on the first
    /// image. With `limit=2` the pages are: two items; after
    /// `A28F5FE3-…` one item; after `166FCDD7-…` none.
    static var acceptance: FeedServerFixtures {
        let ids = [
            "2AB2AE66-A4B7-4A16-B374-51BBAC8DB086",
            "A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A",
            "166FCDD7-C9F4-420A-B2D6-CE2EAFA3D82F",
        ]
        var fixtures = FeedServerFixtures()
        for (index, id) in ids.enumerated() {
            fixtures.feed.append(FeedItem(id: id, image: "{{base}}/image-\(index)"))
            fixtures.images["image-\(index)"] = TinyPNG.make(width: 1, height: 1) { _, _ in
                [(255, 0, 0), (0, 255, 0), (0, 0, 255)][index]
            }
        }
        fixtures.comments[UUID(uuidString: ids[0])!] = [
            Comment(
                id: "7019D8A7-0B35-4057-B7F9-8C5471961ED0", message: "a message",
                createdAt: "2020-05-20T11:24:59+0000", username: "a username"
            ),
        ]
        return fixtures
    }
}

/// Minimal, deterministic PNG encoding (RGB, 8 bits, stored deflate block).
enum TinyPNG {
    /// A 12×12 diagonal gradient between two colours chosen by `index`.
    static func swatch(index: Int) -> [UInt8] {
        let palette: [(UInt8, UInt8, UInt8)] = [
            (0xF2, 0x9E, 0x4C), (0x4C, 0xAF, 0x50), (0x3F, 0x51, 0xB5), (0x9E, 0x9E, 0x9E),
            (0x79, 0x55, 0x48), (0xE9, 0x1E, 0x63), (0xFF, 0xC1, 0x07), (0x00, 0x96, 0x88),
            (0x21, 0x96, 0xF3), (0x67, 0x3A, 0xB7), (0xFF, 0x57, 0x22), (0xEC, 0xEF, 0xF1),
        ]
        let from = palette[index % palette.count]
        let to = palette[(index + 5) % palette.count]
        let size = 12
        return make(width: size, height: size) { x, y in
            let t = (x + y) * 255 / (2 * (size - 1))
            func mix(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Int(a) * (255 - t) + Int(b) * t) / 255) }
            return (mix(from.0, to.0), mix(from.1, to.1), mix(from.2, to.2))
        }
    }

    /// A PNG of the given size (raw data must fit one stored block: 64 KiB).
    static func make(width: Int, height: Int, pixel: (Int, Int) -> (UInt8, UInt8, UInt8)) -> [UInt8] {
        var raw: [UInt8] = []
        for y in 0..<height {
            raw.append(0) // filter: none
            for x in 0..<width {
                let (r, g, b) = pixel(x, y)
                raw += [r, g, b]
            }
        }
        precondition(raw.count <= 0xFFFF, "TinyPNG supports one stored deflate block only")
        let length = UInt16(raw.count)
        var zlib: [UInt8] = [0x78, 0x01, 0x01, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
        zlib += raw + bigEndian(adler32(raw))

        var header = bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        header += [8, 2, 0, 0, 0] // depth 8, colour type RGB, deflate, no filter, no interlace
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", header) + chunk("IDAT", zlib) + chunk("IEND", [])
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
