import Foundation
import XCTest

/// Completions for bash, zsh and fish, made by scripts/completions from
/// each command's --help: every option and command the help lists is a
/// completion word (read here from the help with a parser of the test's
/// own, and from the bash file as written), and each shell, driven for
/// real, completes subcommands, options and finite values.
final class CompletionTests: XCTestCase {
    static let commands = ["feed-fetch", "feed-map", "comments-map", "feed-cache", "feed-paginate", "reldate", "feed-view",
                           "feed-serve", "feed-sync", "feed-show", "feed-comments"]

    /// The completion files of `shell`, made here from the commands under test.
    private func completions(_ shell: String) throws -> String {
        let directory = temporaryDirectory(self) + "/" + shell
        let run = sh(#"PATH="$S:$PATH" "$S/completions" --shell "$SHELL_NAME" --output "$D""#,
                     environment: ["S": AcceptanceTests.scripts, "SHELL_NAME": shell, "D": directory])
        XCTAssertEqual(run.status, 0, run.stderr)
        return directory
    }

    /// The options and commands `command --help` lists: lines of two
    /// spaces then an option (`--name`, or `-h, --help`), and the names
    /// under "commands:".
    private func helpWords(_ command: String) -> Set<String> {
        let help = sh(#"PATH="$S:$PATH" "$C" --help"#, environment: ["S": AcceptanceTests.scripts, "C": command]).out
        var words: Set<String> = ["--help", "--version"]
        var section = ""
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if let first = line.first, first.isLetter, line.hasSuffix(":") { section = String(line); continue }
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { continue }
            let tokens = line.split(separator: " ")
            guard let token = tokens.first else { continue }
            if token.hasPrefix("--") {
                words.insert(String(token.prefix { $0 != "=" }))
            } else if token.hasPrefix("-"), token.hasSuffix(","), tokens.count > 1, tokens[1].hasPrefix("--") {
                words.insert(String(tokens[1]))
            } else if section == "commands:", token.allSatisfy({ $0.isLowercase || $0 == "-" }) {
                words.insert(String(token))
            }
        }
        return words
    }

    func test_everyOptionAndCommandOfEachHelp_isACompletionWord_andNoOtherIs() throws {
        let bash = try completions("bash")
        for command in Self.commands {
            let file = try String(contentsOfFile: bash + "/" + command, encoding: .utf8)
            // The words bash offers: the option list and the subcommand (or file) list of the function.
            var words: Set<String> = []
            for line in file.split(separator: "\n") where line.contains("compgen -W \"") && !line.contains(") mapfile") {
                let list = line.components(separatedBy: "compgen -W \"")[1].components(separatedBy: "\"")[0]
                words.formUnion(list.split(separator: " ").map(String.init))
            }
            XCTAssertEqual(words, helpWords(command), command)
        }
    }

    /// The options each tool parses (its option table, listed by debug
    /// builds) are the options its --help shows: so none lacks a completion.
    func test_theOptionsEachToolParses_areTheOptionsItsHelpShows() throws {
        guard ProcessInfo.processInfo.environment["FEED_BIN"] == nil else {
            throw XCTSkip("the option tables are listed by debug builds only; the installed tools are release builds")
        }
        // The scripts parse in shell, and feed-serve with a parser of its own (FeedServeCommand): their help alone is compared.
        for command in Self.commands where !["feed-sync", "feed-show", "feed-comments", "feed-serve"].contains(command) {
            let listed = sh("FEED_TEST_LIST_OPTIONS=1 \(command)")
            XCTAssertEqual(listed.status, 0, listed.stderr)
            let help = helpWords(command).filter { $0.hasPrefix("--") }
            XCTAssertEqual(Set(listed.lines), help, command)
        }
    }

    func test_bash_completesSubcommandsOptionsAndValues() throws {
        let bash = try completions("bash")
        let run = sh(#"""
            bash -c '
                for f in "$B"/*; do source "$f"; done
                complete -p feed-cache feed-view feed-sync | wc -l
                COMP_WORDS=(feed-cache s); COMP_CWORD=1; _essential_feed_feed_cache; echo "${COMPREPLY[*]}"
                COMP_WORDS=(feed-cache save --a); COMP_CWORD=2; _essential_feed_feed_cache; echo "${COMPREPLY[*]}"
                COMP_WORDS=(feed-view --format ""); COMP_CWORD=2; _essential_feed_feed_view; echo "${COMPREPLY[*]}"
                COMP_WORDS=(reldate --style n); COMP_CWORD=2; _essential_feed_reldate; echo "${COMPREPLY[*]}"
                COMP_WORDS=(reldate --locale pt); COMP_CWORD=2; _essential_feed_reldate; echo "${COMPREPLY[*]}"
                COMP_WORDS=(feed-show --locale zh); COMP_CWORD=2; _essential_feed_feed_show; echo "${COMPREPLY[*]}"
                COMP_WORDS=(feed-view --locale ""); COMP_CWORD=2; _essential_feed_feed_view; echo "${#COMPREPLY[@]} ${COMPREPLY[0]} ${COMPREPLY[30]}"
                cd "$D" && COMP_WORDS=(feed-sync --store fe); COMP_CWORD=2; _essential_feed_feed_sync; printf "%s\n" "${COMPREPLY[@]}" | sort | xargs
                COMP_WORDS=(feed-view --color ""); COMP_CWORD=2; _essential_feed_feed_view; echo "${COMPREPLY[*]}"
                COMP_WORDS=(feed-serve --builtin ""); COMP_CWORD=2; _essential_feed_feed_serve; echo "${COMPREPLY[*]}"
                COMP_WORDS=(feed-serve fe); COMP_CWORD=1; _essential_feed_feed_serve; printf "%s\n" "${COMPREPLY[@]}" | sort | xargs
                for c in feed-map feed-sync feed-view reldate; do COMP_WORDS=($c fe); COMP_CWORD=1; _essential_feed_${c//-/_}; echo "$c: ${#COMPREPLY[@]}"; done
            '
            """#, environment: ["B": bash, "D": try filesFolder()])
        // A value list after the help's first colon ("text: auto, always or
        // never", "a set: demo or acceptance") was not read; file names were
        // offered to commands that take no file (found by the hunt).
        XCTAssertEqual(run.lines, ["3", "save save-images", "--append --after --allow-empty", "text html atom", "narrow", "pt-BR pt-PT", "zh-Hans zh-Hant", "31 en fil",
                                  "feed.json feed.sqlite", "auto always never", "demo acceptance", "feed.json feed.sqlite",
                                  "feed-map: 0", "feed-sync: 0", "feed-view: 0", "reldate: 0"], run.stderr)
    }

    func test_fish_completesSubcommandsOptionsAndValues() throws {
        guard sh("command -v fish").status == 0 else { throw XCTSkip("fish is not installed (the test command installs it)") }
        let fish = try completions("fish")
        let run = sh(#"""
            cd "$D" && fish -c '
                for f in $F/*.fish; source $f; end
                complete -C "feed-cache s"
                complete -C "feed-view --format "
                complete -C "feed-sync --pa"
                complete -C "feed-sync --store fe"
                complete -C "feed-comments --locale zh-"
                complete -C "feed-map fe"
                complete -C "feed-serve fe"
                complete -C "feed-cache --store x l"
                complete -C "feed-cache --wait 5 --tee v"
                complete -C "feed-cache load v"
            ' | cut -f1
            """#, environment: ["F": fish, "D": try filesFolder()])
        // A subcommand after an option's value too (none was offered after
        // --store x, found by the hunt); none after the subcommand.
        XCTAssertEqual(run.lines, ["save", "save-images", "atom", "html", "text", "--pages", "--parallel", "feed.json", "feed.sqlite", "zh-Hans", "zh-Hant",
                                   "feed.json", "feed.sqlite", "load", "validate"], run.stderr)
    }

    func test_zsh_loadsEachFunctionUnderCompinit_andListsTheCandidates() throws {
        guard sh("command -v zsh").status == 0 else { throw XCTSkip("zsh is not installed (the test command installs it)") }
        let zsh = try completions("zsh")
        let loaded = sh(#"zsh -f -c 'fpath=("$Z" $fpath); autoload -U compinit; compinit -u -D; for c in feed-cache feed-view feed-sync; do print -r -- $_comps[$c]; done'"#,
                        environment: ["Z": zsh])
        XCTAssertEqual(loaded.lines, ["_feed-cache", "_feed-view", "_feed-sync"], loaded.stderr)
        // An interactive zsh in a pseudo-terminal, given "feed-cache s" and
        // TAB TAB: the candidates it lists, read until each has come (for up
        // to 20 s: a second, on a machine busy with other tests, was not
        // enough for compinit and the completion).
        let script = #"""
            zmodload zsh/zpty
            zpty z zsh -f -i
            zpty -w z 'PS1="> "; fpath=("$Z" $fpath); autoload -U compinit; compinit -u -D; zstyle ":completion:*" list-prompt ""'
            zpty -w -n z "$WORDS"$'\t\t'
            all=""
            integer tries=0 missing=1
            while (( missing && tries++ < 200 )); do
                sleep 0.1
                while zpty -r -t z out; do all+=$out; done
                missing=0
                for word in ${=EXPECTED}; do [[ $all == *$word* ]] || missing=1; done
            done
            zpty -w -n z $'\C-c'
            print -r -- $all
            zpty -d z
            """#
        for (words, expected) in [("feed-cache s", ["save", "save-images"]), ("feed-view --format ", ["atom", "html", "text"])] {
            let listing = sh(#"zsh -f -c "$SCRIPT""#, environment: ["Z": zsh, "SCRIPT": script, "WORDS": words, "EXPECTED": expected.joined(separator: " ")],
                             timeout: 40)
            for candidate in expected { XCTAssertTrue(listing.out.contains(candidate), "\(words): \(candidate) in \(listing.out.debugDescription)") }
        }
    }

    /// A folder holding feed.json and feed.sqlite and a folder, for file-name completion.
    /// A file name completed by bash is a file name to readline: a space
    /// is escaped and a folder ends in `/` (without `-o filenames`,
    /// `--store my<TAB>` made two words of "my store.sqlite"). Typed into an
    /// interactive bash in tmux, where tmux is installed.
    func test_bash_completesAFileNameAsAFileName_escapedAndAFolderWithItsSlash() throws {
        let bash = try completions("bash")
        let generated = try String(contentsOfFile: bash + "/feed-cache", encoding: .utf8)
        XCTAssertTrue(generated.contains("--store) compopt -o filenames"), generated)
        guard sh("command -v tmux").status == 0 else {
            print("CompletionTests: tmux is not installed: completion is not typed into an interactive bash")
            return
        }
        let d = temporaryDirectory(self)
        let run = sh(#"""
            mkdir -p "$D/w/cmp/sub" && : > "$D/w/cmp/my store.sqlite"
            printf '%s\n' "PS1='$ '" "for f in \"$B\"/*; do source \"\$f\"; done" "cd \"$D/w\"" > "$D/rc"
            export TMUX_TMPDIR="$D"
            tmux new-session -d -s c -x 150 -y 10 "bash --rcfile '$D/rc' -i" || exit 1
            sleep 0.5; tmux send-keys -t c 'feed-cache --store cmp/my' Tab; sleep 0.5
            tmux capture-pane -t c -p | grep -F 'feed-cache'
            tmux send-keys -t c C-u 'feed-cache --store cmp/su' Tab; sleep 0.5
            tmux capture-pane -t c -p | grep -F 'feed-cache'
            tmux kill-server
            """#, environment: ["B": bash, "D": d], timeout: 30)
        XCTAssertEqual(run.lines, [#"$ feed-cache --store cmp/my\ store.sqlite"#, "$ feed-cache --store cmp/sub/"], run.out + run.stderr)
    }

    private func filesFolder() throws -> String {
        let directory = temporaryDirectory(self)
        for name in ["feed.json", "feed.sqlite", "other.txt"] { XCTAssertTrue(FileManager.default.createFile(atPath: directory + "/" + name, contents: Data())) }
        return directory
    }
}
