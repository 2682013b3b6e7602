import Foundation
import XCTest

/// The artefacts of scripts/package (the test command makes them and
/// names their folder in `FEED_PACKAGE_DIR`): the Debian package's fields
/// and lintian's verdict, and both artefacts run where Swift is not: in a
/// private mount namespace with the toolchain's folder hidden under an
/// empty tmpfs, the package unpacked, the demo server, the documented
/// crontab line under cron's environment, feed-show, the web page and
/// man all work from it; every library the executables load belongs to a
/// package the .deb depends on.
final class PackageTests: XCTestCase {
    private func artefacts() throws -> (deb: String, tarball: String) {
        guard let directory = ProcessInfo.processInfo.environment["FEED_PACKAGE_DIR"], !directory.isEmpty else {
            throw XCTSkip("FEED_PACKAGE_DIR is not set: the test command makes the package (scripts/package) and runs these tests on it")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        let deb = try XCTUnwrap(files.first { $0.hasSuffix(".deb") }, "\(files)")
        let tarball = try XCTUnwrap(files.first { $0.hasSuffix(".tar.gz") }, "\(files)")
        return (directory + "/" + deb, directory + "/" + tarball)
    }

    func test_debianPackage_namesTheToolsVersion_dependsOnWhatItLinks_andLintianFindsNoError() throws {
        let (deb, tarball) = try artefacts()
        let version = sh("feed-cache --version").out.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "feed-cache ", with: "")
        let arch = sh("dpkg --print-architecture").out.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual((deb as NSString).lastPathComponent, "essential-feed_\(version)_\(arch).deb")
        XCTAssertTrue((tarball as NSString).lastPathComponent.hasPrefix("essential-feed-\(version)-linux-"), tarball)
        let fields = sh(#"dpkg-deb -f "$P" Package Version Depends"#, environment: ["P": deb])
        XCTAssertEqual(fields.status, 0, fields.stderr)
        print("PackageTests: \(fields.out.replacingOccurrences(of: "\n", with: "; "))")
        XCTAssertTrue(fields.out.contains("Version: \(version)\n"), fields.out)
        let depends = Self.dependedOn(fields.out)
        for name in ["libc6", "libcurl4", "libpq5", "libsqlite3-0", "zlib1g"] { XCTAssertTrue(depends.contains(name), "\(name) in \(depends)") }
        XCTAssertFalse(fields.out.lowercased().contains("swift"), "no Swift package is needed")
        // The C library linked into the static executable (LGPL) is named, at the version built with.
        let builtUsing = sh(#"dpkg-deb -f "$P" Built-Using"#, environment: ["P": deb]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let linkedIn = sh(#"dpkg-query -W -f='${source:Package} (= ${source:Version})' "libc6-dev:$(dpkg --print-architecture)""#).out
        XCTAssertTrue(builtUsing.hasPrefix("glibc (= "), builtUsing)
        XCTAssertEqual(builtUsing, linkedIn)
        // Made under umask 077 (scripts/test): every folder and file is
        // everyone's to read, and every folder to enter.
        let modes = sh(#"dpkg-deb -c "$P" | awk '{ print substr($1, 1, 10) }' | sort -u"#, environment: ["P": deb])
        XCTAssertTrue(Set(modes.lines).isSubset(of: ["drwxr-xr-x", "-rw-r--r--", "-rwxr-xr-x", "lrwxrwxrwx"]), modes.out)
        XCTAssertTrue(modes.lines.contains("drwxr-xr-x") && modes.lines.contains("-rwxr-xr-x"), modes.out)
        // Every file's MD5 sum for dpkg --verify, and one time for every
        // file (the last commit's), so that two builds are the same bytes
        // (found by the hunt: no sums, and the build's times).
        let sums = sh(#"dpkg-deb --ctrl-tarfile "$P" | tar -xOf - ./md5sums | wc -l; dpkg-deb -c "$P" | grep -c '^-'; dpkg-deb -c "$P" | awk '{ print $4, $5 }' | sort -u | wc -l"#,
                      environment: ["P": deb])
        XCTAssertEqual(sums.lines.count, 3, sums.stderr)
        XCTAssertEqual(sums.lines.first, sums.lines.dropFirst().first, "a sum for each file: \(sums.out)")
        XCTAssertEqual(sums.lines.last, "1", "one time for every file: \(sums.out)")
        // The tarball's units would name /bin/feed-sync: it has none (they were in share/systemd/user).
        let listed = sh(#"tar -tzf "$T""#, environment: ["T": tarball])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertFalse(listed.out.contains("systemd"), listed.out)

        // Every library the executables load is of a package the .deb depends on (or one of those packages' own dependencies, which dpkg-shlibdeps leaves out).
        let tree = temporaryDirectory(self)
        XCTAssertEqual(sh(#"dpkg-deb -x "$P" "$T""#, environment: ["P": deb, "T": tree]).status, 0)
        let libraries = sh(#"ldd "$T/usr/libexec/essential-feed/essential-feed-net" | awk '$2 == "=>" { print $3 }' | sort -u"#,
                           environment: ["T": tree])
        XCTAssertEqual(sh(#"ldd "$T/usr/libexec/essential-feed/essential-feed" 2>&1"#, environment: ["T": tree]).out.contains("not a dynamic executable"), true, "the multi-call executable is static")
        // The C++ runtime and the unwinder the Swift runtime needs are linked in (Sources/StaticRuntime), not loaded at start.
        for name in ["libstdc++", "libgcc_s"] { XCTAssertFalse(libraries.out.contains(name), "\(name) is not loaded: \(libraries.out)") }
        let owners = sh(#"while read -r lib; do dpkg -S "$(readlink -f "$lib")" 2> /dev/null || dpkg -S "$lib"; done | cut -d: -f1 | sort -u"#,
                        stdin: libraries.out)
        let direct = Set(["libc6", "libcurl4", "libgcc-s1", "libpq5", "libsqlite3-0", "libstdc++6", "zlib1g"])
        for owner in owners.lines where direct.contains(owner) { XCTAssertTrue(depends.contains(owner), "\(owner) is linked: in Depends") }

        if sh("command -v lintian").status == 0 {
            let lintian = sh(#"lintian --tag-display-limit 0 "$P" 2>&1 | grep -v 'running with root privileges'"#, environment: ["P": deb], timeout: 300)
            print("PackageTests: lintian: \(lintian.out.isEmpty ? "nothing to report (one error overridden, explained in scripts/package)" : lintian.out)")
            XCTAssertFalse(lintian.lines.contains { $0.hasPrefix("E:") }, lintian.out)
        } else {
            print("PackageTests: lintian is not installed: the package is not checked by it")
        }
    }

    func test_packageAndTarball_runWithTheToolchainHidden() throws {
        let (deb, tarball) = try artefacts()
        guard getuid() == 0, sh("command -v unshare").status == 0, sh("unshare --mount true").status == 0 else {
            throw XCTSkip("running with the toolchain hidden needs root and unshare --mount; not here")
        }
        let swift = sh("command -v swift").out.trimmingCharacters(in: .whitespacesAndNewlines)
        // The toolchain's top folder (…/usr/bin/swift: two levels up from bin).
        let toolchain = URL(fileURLWithPath: swift).resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let work = temporaryDirectory(self)
        let script = #"""
            set -eu
            mount -t tmpfs tmpfs "$TOOLCHAIN"
            [ ! -e "$TOOLCHAIN/usr/bin/swift" ]
            mkdir -p "$W/deb" "$W/tar"
            dpkg-deb -x "$DEB" "$W/deb"
            tar -C "$W/tar" -xzf "$TARBALL"
            for prefix in "$W/deb/usr" "$W/tar"/essential-feed-*; do
                home=$(mktemp -d "$W/home.XXXXXX")
                "$prefix/bin/feed-serve" --builtin demo --port 0 > "$home/serve" 2> /dev/null &
                serve=$!
                i=0; while [ ! -s "$home/serve" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
                base=$(head -n 1 "$home/serve")
                # The documented crontab line, under cron's environment.
                env -i PATH="$prefix/bin:/usr/bin:/bin" SHELL=/bin/sh HOME="$home" LOGNAME=cron FEED_BASE_URL="$base" /bin/sh -c 'feed-sync --pages 3' > "$home/cron.out" 2>&1
                [ ! -s "$home/cron.out" ] || { cat "$home/cron.out"; exit 1; }
                env -i PATH="$prefix/bin:/usr/bin:/bin" HOME="$home" FEED_BASE_URL="$base" feed-show > "$home/show" 2>&1
                grep -q . "$home/show"
                env -i PATH="$prefix/bin:/usr/bin:/bin" HOME="$home" sh -c 'feed-cache load --images | feed-view --format html' > "$home/page.html"
                grep -q '<img src="data:image/png;base64,' "$home/page.html"
                MANPATH="$prefix/share/man" man -w feed-sync | grep -q "^$prefix/share/man/man1/feed-sync.1"
                MANPATH="$prefix/share/man" MANPAGER=cat man feed-sync 2> /dev/null | grep -q 'feed-sync'
                kill "$serve"
                echo "ran from $prefix"
            done
            """#
        let run = sh(#"unshare --mount --propagation private sh -c "$SCRIPT""#,
                     environment: ["SCRIPT": script, "TOOLCHAIN": toolchain, "W": work, "DEB": deb, "TARBALL": tarball], timeout: 300)
        XCTAssertEqual(run.status, 0, run.out + run.stderr)
        XCTAssertEqual(run.lines.filter { $0.hasPrefix("ran from ") }.count, 2, run.out + run.stderr)
        print("PackageTests: with \(toolchain) hidden, the .deb's tree and the tarball each ran the demo server, the crontab line, feed-show, the web page and man")
    }

    /// The package names in a Depends field.
    static func dependedOn(_ fields: String) -> Set<String> {
        guard let line = fields.split(separator: "\n").first(where: { $0.hasPrefix("Depends: ") }) else { return [] }
        return Set(line.dropFirst(9).split(separator: ",").map { String($0.trimmingCharacters(in: .whitespaces).prefix { $0 != " " }) })
    }
}
