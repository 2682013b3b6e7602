import Foundation
import XCTest

/// feed-sync's systemd user units, as scripts/install installs them: they
/// name the installed feed-sync, `systemd-analyze verify` finds nothing to
/// say, the sandbox is rated, the timer is what the documents say, and the
/// service's command runs as the unit runs it (its environment file, a
/// bare environment) and fills the cache it may write. Where systemd can
/// run a user manager the service would be started for real; where it
/// cannot (a container without systemd), the test says so.
final class SystemdUnitTests: XCTestCase {
    /// The installed prefix under test (scripts/test's last pass), else one installed here.
    private func installedPrefix() throws -> String {
        let prefix = URL(fileURLWithPath: Products.directory).deletingLastPathComponent().path
        if FileManager.default.fileExists(atPath: prefix + "/share/systemd/user/feed-sync.service") { return prefix }
        let here = temporaryDirectory(self) + "/prefix"
        let install = sh(#""$R/scripts/install" --from "$FEED_BIN" --prefix "$P""#,
                         environment: ["R": DocumentedRecipeTests.root.path, "FEED_BIN": Products.directory, "P": here], timeout: 120)
        XCTAssertEqual(install.status, 0, install.stderr)
        return here
    }

    /// Under a prefix whose share folder the user manager does not search
    /// ($XDG_DATA_HOME, $XDG_DATA_DIRS), the install says how to link the
    /// units (the README's `systemctl --user enable` found none: found by
    /// the stranger's review); under one it searches, it says nothing more.
    /// The unit's comment names no path in place of its placeholder.
    func test_install_underAPrefixTheUserManagerDoesNotSearch_saysHowToLinkTheUnits() throws {
        let directory = temporaryDirectory(self)
        let prefix = directory + "/p"
        let environment = ["R": DocumentedRecipeTests.root.path, "FEED_BIN": Self.installable.path, "P": prefix, "HOME": directory]
        let elsewhere = sh(#"unset XDG_DATA_HOME XDG_DATA_DIRS; "$R/scripts/install" --from "$FEED_BIN" --prefix "$P""#, environment: environment, timeout: 120)
        XCTAssertEqual(elsewhere.status, 0, elsewhere.stderr)
        let units = prefix + "/share/systemd/user"
        XCTAssertTrue(elsewhere.stderr.hasSuffix("install: the systemd user manager does not look in \(units): for the timer, systemctl --user link \(units)/feed-sync.service \(units)/feed-sync.timer\n"), elsewhere.stderr)
        let searched = sh(#"XDG_DATA_HOME="$P/share" "$R/scripts/install" --from "$FEED_BIN" --prefix "$P""#, environment: environment, timeout: 120)
        XCTAssertEqual(searched.status, 0, searched.stderr)
        XCTAssertFalse(searched.stderr.contains("systemctl"), searched.stderr)
        // ~/.local/, as completion leaves it, with HOME ending in a slash: the same folder (compared as text, it was not).
        let local = sh(#"unset XDG_DATA_HOME; HOME="$HOME/" "$R/scripts/install" --from "$FEED_BIN" --prefix "$HOME/.local/""#, environment: environment, timeout: 120)
        XCTAssertEqual(local.status, 0, local.stderr)
        XCTAssertFalse(local.stderr.contains("systemctl"), local.stderr)
        let service = try String(contentsOfFile: units + "/feed-sync.service", encoding: .utf8)
        XCTAssertTrue(service.contains("\n# writes the path of feed-sync where ExecStart names it.\n"), service)
    }

    func test_userUnits_nameTheInstalledFeedSync_verifyClean_andTheServiceRunsAsTheUnitRunsIt() throws {
        let prefix = try installedPrefix()
        // Under a prefix other than /usr and /usr/local: the XDG data folder the user manager searches.
        let units = prefix + "/share/systemd/user"
        let service = try String(contentsOfFile: units + "/feed-sync.service", encoding: .utf8)
        let timer = try String(contentsOfFile: units + "/feed-sync.timer", encoding: .utf8)
        XCTAssertFalse(service.contains("@FEED_SYNC@"))
        let settings = Dictionary(service.split(separator: "\n").filter { !$0.hasPrefix("#") && $0.contains("=") }
            .map { line -> (String, String) in let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false); return (String(parts[0]), String(parts[1])) },
            uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(settings["ExecStart"], prefix + "/bin/feed-sync --pages 3")
        XCTAssertEqual(settings["EnvironmentFile"], "%E/essential-feed/feed-sync.env")
        XCTAssertEqual(settings["CacheDirectory"], "essential-feed")
        XCTAssertEqual(settings["ProtectHome"], "read-only")
        XCTAssertEqual(settings["ProtectSystem"], "strict")
        for line in ["OnCalendar=*:00/30", "RandomizedDelaySec=5min", "Persistent=true", "WantedBy=timers.target"] {
            XCTAssertTrue(timer.contains(line + "\n"), line)
        }

        if sh("command -v systemd-analyze").status == 0 {
            let runtime = temporaryDirectory(self)
            XCTAssertEqual(chmod(runtime, 0o700), 0)
            let environment = ["XDG_RUNTIME_DIR": runtime, "MANPATH": prefix + "/share/man:", "U": units]
            let verify = sh(#"systemd-analyze verify --user "$U/feed-sync.service" "$U/feed-sync.timer""#, environment: environment)
            XCTAssertEqual(verify.status, 0, verify.stderr)
            XCTAssertEqual(verify.out + verify.stderr, "", "verify has nothing to say")
            let security = sh(#"systemd-analyze security --offline=true --user "$U/feed-sync.service""#, environment: environment)
            XCTAssertEqual(security.status, 0, security.stderr)
            let overall = security.lines.first { $0.contains("Overall exposure level") } ?? security.out
            print("SystemdUnitTests: \(overall.trimmingCharacters(in: .whitespaces))")
            let score = overall.split(separator: " ").compactMap { Double($0) }.first
            XCTAssertLessThanOrEqual(try XCTUnwrap(score, overall), 3.0, "the sandbox rates OK or better")
        } else {
            print("SystemdUnitTests: systemd-analyze is not installed: the units are not verified")
        }

        // The service's command as the unit runs it: a bare environment (a
        // user manager's PATH), HOME, and the variables of its environment
        // file, written as the README says. A user manager is tried first.
        let server = try Served(test: self)
        let home = temporaryDirectory(self)
        if sh("systemctl --user is-system-running").status == 0 {
            print("SystemdUnitTests: a user manager runs here; the service is still run by hand, in a private home")
        } else {
            print("SystemdUnitTests: systemd runs no user manager here: the service's command runs as the unit would run it")
        }
        let readme = try String(contentsOf: DocumentedRecipeTests.root.appendingPathComponent("README.md"), encoding: .utf8)
        let block = readme.components(separatedBy: "\n").filter { $0.hasPrefix("    ") }.map { String($0.dropFirst(4)) }
        let setup = block.filter { $0.hasPrefix("mkdir -p ~/.config/essential-feed") || $0.hasPrefix("echo FEED_BASE_URL=") }
        XCTAssertEqual(setup.count, 2, "the README says how to write the environment file")
        XCTAssertTrue(block.contains("systemctl --user enable --now feed-sync.timer"))
        XCTAssertTrue(block.contains("journalctl --user -u feed-sync.service"))
        let prepared = sh(setup.joined(separator: "\n").replacingOccurrences(of: "https://feed.example.com", with: server.base), environment: ["HOME": home])
        XCTAssertEqual(prepared.status, 0, prepared.stderr)
        let command = try XCTUnwrap(settings["ExecStart"])
        let run = sh(#"set -a; . "$H/.config/essential-feed/feed-sync.env"; set +a; exec env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$H" FEED_BASE_URL="$FEED_BASE_URL" "#
                     + command, environment: ["H": home], timeout: 120)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.out + run.stderr, "", "silent on success")
        let loaded = sh(#"feed-cache --store "$H/.cache/essential-feed/feed.sqlite" load"#, environment: ["H": home])
        let served = sh(#"feed-fetch --base-url "$B" --limit 30 | feed-map"#, environment: ["B": server.base])
        XCTAssertEqual(loaded.status, 0, loaded.stderr)
        XCTAssertFalse(loaded.lines.isEmpty)
        XCTAssertEqual(loaded.out, served.out, "the cache holds the served feed")
    }

    /// The service's system call filter lets each tool confine itself: the
    /// calls of Landlock and seccomp (and prctl, for no new privileges)
    /// are allowed and not denied, group by group as systemd-analyze tells
    /// the groups here. @system-service holds none of them on systemd 252:
    /// there the tools were refused with EPERM and ran unconfined.
    func test_userUnit_systemCallFilter_letsTheToolsConfineThemselves() throws {
        guard sh("command -v systemd-analyze").status == 0 else {
            print("SystemdUnitTests: systemd-analyze is not installed: the filter is not checked")
            return
        }
        let service = try String(contentsOfFile: installedPrefix() + "/share/systemd/user/feed-sync.service", encoding: .utf8)
        let filters = service.split(separator: "\n").filter { $0.hasPrefix("SystemCallFilter=") }.map { $0.dropFirst("SystemCallFilter=".count) }
        var memo: [String: Set<String>] = [:]
        func calls(_ name: String) -> Set<String> {
            guard name.hasPrefix("@") else { return [name] }
            if let known = memo[name] { return known }
            let listed = sh("systemd-analyze syscall-filter \(quoted(name))").lines.dropFirst()
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
            let all = listed.reduce(into: Set<String>()) { $0.formUnion(calls($1)) }
            memo[name] = all
            return all
        }
        var allowed = Set<String>(), denied = Set<String>()
        for filter in filters {
            let deny = filter.hasPrefix("~")
            for name in filter.dropFirst(deny ? 1 : 0).split(separator: " ") {
                if deny { denied.formUnion(calls(String(name))) } else { allowed.formUnion(calls(String(name))) }
            }
        }
        XCTAssertTrue(allowed.contains("read"), "the groups were read: \(allowed.count) calls")
        for call in ["seccomp", "landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self", "prctl"] {
            XCTAssertTrue(allowed.contains(call) && !denied.contains(call), "\(call) is allowed")
        }
    }

    /// The executables install takes: the build's, or, when the tools
    /// under test are an installed prefix's, those in its libexec.
    static var installable: URL {
        let products = URL(fileURLWithPath: Products.directory)
        guard !FileManager.default.isExecutableFile(atPath: products.path + "/essential-feed") else { return products }
        return products.deletingLastPathComponent().appendingPathComponent("libexec/essential-feed")
    }

    /// scripts/install run from a folder of the caller's, with a relative
    /// --from and a relative --prefix holding a space and a %: both are
    /// the caller's (they were the source tree's), the unit's command is
    /// quoted and its % doubled as systemd reads them (the unit named
    /// ".../my" as its command), and --uninstall leaves no file or folder
    /// of the install behind (mandb's index and cached pages stayed).
    func test_install_takesRelativePathsAsTheCallers_quotesTheUnitsCommand_andUninstallLeavesNothing() throws {
        let d = temporaryDirectory(self)
        let products = Self.installable
        let run = sh(#"""
            mkdir "$D/caller" && cd "$D/caller" && ln -s "$PRODUCTS" built &&
            "$R/scripts/install" --from built --prefix "my 100% pfx" 2> /dev/null && echo installed &&
            grep '^ExecStart=' "my 100% pfx/share/systemd/user/feed-sync.service" &&
            "my 100% pfx/bin/feed-sync" --version > /dev/null && echo runs &&
            { ! command -v systemd-analyze > /dev/null || MANPATH="$PWD/my 100% pfx/share/man:" XDG_RUNTIME_DIR="$D" systemd-analyze verify --user "my 100% pfx/share/systemd/user/feed-sync.service" "my 100% pfx/share/systemd/user/feed-sync.timer"; } && echo verified &&
            "$R/scripts/install" --uninstall --prefix "my 100% pfx" 2> /dev/null && echo uninstalled &&
            ls -A "$D/caller"
            """#, environment: ["D": d, "R": DocumentedRecipeTests.root.path, "PRODUCTS": products.path], timeout: 120)
        XCTAssertEqual(run.lines, ["installed", #"ExecStart="\#(d)/caller/my 100%% pfx/bin/feed-sync" --pages 3"#, "runs", "verified", "uninstalled", "built"],
                       run.out + run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: DocumentedRecipeTests.root.path + "/my 100% pfx"), "nothing made in the source tree")

        // Folders there before the install, empty (a distribution's), stay; those it made go.
        let kept = sh(#"""
            cd "$D/caller" && mkdir -p usr/bin usr/share/man usr/lib && ln -s share/man usr/man &&
            "$R/scripts/install" --from built --prefix usr 2> /dev/null && "$R/scripts/install" --uninstall --prefix usr 2> /dev/null &&
            cd usr && find . | sort
            """#, environment: ["D": d, "R": DocumentedRecipeTests.root.path], timeout: 120)
        XCTAssertEqual(kept.lines, [".", "./bin", "./lib", "./man", "./share", "./share/man"], kept.out + kept.stderr)
    }

    /// A prefix whose bin is a symbolic link to a folder elsewhere: the
    /// tools' links led from there to a libexec that is not (127, and the
    /// install failed at the completions). And an install that fails half
    /// way (a file where the fish completions' folder goes) leaves its
    /// list of folders made, so that --uninstall still removes them (it was
    /// written at the end only).
    func test_install_intoAPrefixWhoseBinIsALink_andAfterAFailure_uninstallRemovesWhatItMade() throws {
        let d = temporaryDirectory(self)
        let products = Self.installable
        let linked = sh(#"""
            mkdir -p "$D/elsewhere/bin" "$D/p" && ln -s "$D/elsewhere/bin" "$D/p/bin" &&
            "$R/scripts/install" --from "$PRODUCTS" --prefix "$D/p" 2> /dev/null && echo installed &&
            "$D/p/bin/feed-map" --version > /dev/null && "$D/p/bin/feed-fetch" --version > /dev/null && echo runs &&
            "$R/scripts/install" --uninstall --prefix "$D/p" 2> /dev/null && echo uninstalled &&
            cd "$D" && find p elsewhere | sort
            """#, environment: ["D": d, "R": DocumentedRecipeTests.root.path, "PRODUCTS": products.path], timeout: 120)
        XCTAssertEqual(linked.lines, ["installed", "runs", "uninstalled", "elsewhere", "elsewhere/bin", "p", "p/bin"], linked.out + linked.stderr)

        let failed = sh(#"""
            mkdir -p "$D/q/share" && : > "$D/q/share/fish" &&
            { "$R/scripts/install" --from "$PRODUCTS" --prefix "$D/q" 2> /dev/null && echo installed || echo "install failed"; } &&
            rm "$D/q/share/fish" && "$R/scripts/install" --uninstall --prefix "$D/q" 2> /dev/null && echo uninstalled &&
            cd "$D" && find q | sort
            """#, environment: ["D": d, "R": DocumentedRecipeTests.root.path, "PRODUCTS": products.path], timeout: 120)
        XCTAssertEqual(failed.lines, ["install failed", "uninstalled", "q", "q/share"], failed.out + failed.stderr)
    }
}
