import EssentialFeed
import Foundation

/// A POSIX locale name (`pt_BR.UTF-8@euro`) or BCP 47 tag (`pt-BR`)
/// reduced to what the tools use: an ICU identifier for dates and the best
/// translated language for text, always the same language for both.
///
/// Names are matched without regard to letter case (`PT_br` is `pt_BR`). A
/// language with no translation gets English titles and English dates
/// (`en_US_POSIX`), so that no screen mixes two languages.
public struct AppLocale: Equatable, Sendable {
    /// e.g. `pt_BR`, `zh_Hans_CN`, `en_US_POSIX`: what dates are formatted in.
    public let identifier: String
    /// One of `Localized.languages`.
    public let language: String

    /// The locale of `name`; a name that is not a locale name counts as `C`.
    /// A numbering system ICU does not have is passed over (in the
    /// environment, a bad `@numbers=` made the whole locale English: found
    /// in review); `--locale` refuses it (`init(validating:)`).
    public init(_ name: String) {
        self = AppLocale(validating: name) ?? AppLocale(validating: name, unknownNumbers: .ignored) ?? AppLocale(validating: "C")!
    }

    enum UnknownNumbers { case refused, ignored }

    /// The locale of `name`, or nil when `name` is not a locale name
    /// (`LANG[_Script][_REGION][_VARIANT][.CODESET][@MODIFIER]`, `-` or `_` between
    /// the parts, or `C`, `POSIX`), or a BCP 47 tag with extensions
    /// (`ar-EG-u-nu-latn`).
    ///
    /// The digits may be chosen, as ICU takes them: by a tag's `-u-nu-`
    /// (`ar-EG-u-nu-latn`) or a modifier `@numbers=` (`ar_EG@numbers=latn`),
    /// a numbering system ICU has (`latn`, `arab`, `deva`, …); an Arabic
    /// reader in Egypt who writes Western digits got ٣ and a tag saying so
    /// was a usage error (found by the hunt). Other extensions and
    /// modifiers (`@euro`) are passed over.
    public init?(validating name: String) {
        self.init(validating: name, unknownNumbers: .refused)
    }

    init?(validating name: String, unknownNumbers: UnknownNumbers) {
        var base = Substring(name)
        var numbers: String?
        if let at = base.firstIndex(of: "@") {
            let modifier = base[base.index(after: at)...]
            guard Self.isToken(modifier) else { return nil }
            if modifier.lowercased().hasPrefix("numbers=") {
                numbers = modifier.dropFirst("numbers=".count).lowercased()
            }
            base = base[..<at]
        }
        if let dot = base.firstIndex(of: ".") {
            guard Self.isToken(base[base.index(after: dot)...]) else { return nil }
            base = base[..<dot]
        }
        if base == "C" || base == "POSIX" || (base.isEmpty && name.isEmpty) {
            self.init(identifier: "en_US_POSIX", language: "en")
            return
        }
        var parts = base.split(separator: "_", omittingEmptySubsequences: false).flatMap {
            $0.split(separator: "-", omittingEmptySubsequences: false)
        }
        // A tag's extensions, from its first singleton on.
        if let singleton = parts.firstIndex(where: { $0.count == 1 }), singleton > 0 {
            guard let chosen = Self.numbers(inExtensions: parts[singleton...]) else { return nil }
            if let chosen, numbers == nil { numbers = chosen }
            parts.removeSubrange(singleton...)
        }
        if let given = numbers, !Self.numberingSystems.contains(given) {
            guard unknownNumbers == .ignored else { return nil }
            numbers = nil
        }
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy(Self.isLetter) else { return nil }
        // The current code for dates too: ICU knows no `tl` or `in`, and
        // their dates were English under a Filipino or Indonesian title
        // (found by the hunt).
        let code = Self.currentCode(first.lowercased())
        var script: String?
        var region: String?
        var variant: String?
        for part in parts.dropFirst() {
            if variant != nil { return nil }
            if script == nil, region == nil, part.count == 4, part.allSatisfy(Self.isLetter) {
                script = part.prefix(1).uppercased() + part.dropFirst().lowercased()
            } else if region == nil, (part.count == 2 && part.allSatisfy(Self.isLetter)) || (part.count == 3 && part.allSatisfy(\.isNumber)) {
                region = part.uppercased()
            } else if (5...8).contains(part.count), part.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
                variant = part.uppercased()  // en_US_POSIX
            } else {
                return nil
            }
        }
        guard let language = Self.translation(code: code, script: script, region: region) else {
            self.init(identifier: "en_US_POSIX", language: "en")
            return
        }
        // Chinese in a script of neither kind (zh_Cyrl_TW) dates in the
        // script its titles are in, the region's (its dates and titles were
        // in two scripts: found in review).
        if code == "zh", let given = script, given != "Hans", given != "Hant" { script = language == "zh-Hant" ? "Hant" : "Hans" }
        // Every other language is translated in one script, and dates in
        // it: Cantonese in Traditional Chinese wherever it is (yue_CN dated
        // in Simplified under a Traditional title), the rest in the script
        // ICU gives the language alone (hi_Latn dated in Latin letters under
        // a Devanagari title: found by the hunt).
        if code == "yue" { script = "Hant" } else if code != "zh" { script = nil }
        let identifier = ([code] + [script, region, variant].compactMap { $0 }).joined(separator: "_")
        self.init(identifier: identifier + (numbers.map { "@numbers=" + $0 } ?? ""), language: language)
    }

    /// The numbering system a tag's extensions (from the first singleton
    /// on) choose with `u-nu-`: `.some(nil)` when they choose none, nil when
    /// they are not well formed (BCP 47: a singleton and subtags of two to
    /// eight letters or digits; after `x`, of one to eight).
    private static func numbers(inExtensions subtags: ArraySlice<Substring>) -> String?? {
        var numbers: String?
        var singleton: Substring?
        var key: Substring?
        var counted = 0
        for subtag in subtags {
            guard subtag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
            if singleton?.lowercased() == "x" {
                guard (1...8).contains(subtag.count) else { return nil }
                counted += 1
                continue
            }
            if subtag.count == 1 {
                guard singleton == nil || counted > 0 else { return nil }
                singleton = subtag
                key = nil
                counted = 0
                continue
            }
            guard (2...8).contains(subtag.count) else { return nil }
            counted += 1
            guard singleton?.lowercased() == "u" else { continue }
            if subtag.count == 2 {
                key = subtag
            } else if key?.lowercased() == "nu", numbers == nil {
                numbers = subtag.lowercased()
            }
        }
        guard counted > 0 else { return nil }
        return .some(numbers)
    }

    /// The numbering systems ICU has (`latn`, `arab`, `deva`, …).
    private static var numberingSystems: Set<String> {
        Set(Locale.NumberingSystem.availableNumberingSystems.map(\.identifier))
    }

    private init(identifier: String, language: String) {
        self.identifier = identifier
        self.language = language
    }

    /// The translated language for a locale: `lang-REGION` when translated
    /// (`pt-BR`), Chinese by script (`zh-Hant` for Taiwan, Hong Kong and
    /// Macao), Portuguese of a region other than Brazil European, else the
    /// language, else its first regional form (`pt` is `pt-BR`).
    static func translation(code: String, script: String?, region: String?) -> String? {
        let languages = Localized.languages
        let code = currentCode(code)
        if code == "zh" {
            // The script, else (none, or one of neither kind) the region.
            let known = script == "Hans" || script == "Hant" ? script : nil
            let traditional = known == "Hant" || (known == nil && ["TW", "HK", "MO"].contains(region ?? ""))
            return traditional ? "zh-Hant" : "zh-Hans"
        }
        if let region, languages.contains("\(code)-\(region)") { return "\(code)-\(region)" }
        // Portuguese outside Brazil is European Portuguese (pt_AO, pt_MZ).
        if code == "pt", let region, region != "BR" { return "pt-PT" }
        if languages.contains(code) { return code }
        return languages.first { $0.hasPrefix(code + "-") }
    }

    /// The code of a language named by an older one (ISO 639-1, as glibc
    /// still names some).
    private static func currentCode(_ code: String) -> String { ["tl": "fil", "in": "id"][code] ?? code }

    private static func isLetter(_ c: Character) -> Bool { c.isASCII && c.isLetter }

    private static func isToken(_ s: Substring) -> Bool {
        !s.isEmpty && s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "=") }
    }

    /// The locale a tool uses: `option` (`--locale`) when given, else the
    /// environment's. A malformed `option` is a usage error.
    public static func chosen(option: String?, environment: [String: String]) throws(ErrorRecord) -> AppLocale {
        guard let option else { return fromEnvironment(environment) }
        guard let locale = AppLocale(validating: option) else {
            throw ErrorRecord(.usage, "--locale takes a locale name such as pt_BR, el_GR or zh-Hans, not '\(option)'")
        }
        return locale
    }

    /// The locale from the environment, as GNU gettext picks the language
    /// of messages: the first language of `LANGUAGE` (a list separated by
    /// colons) that has a translation (English has one; a `C` there stops
    /// the search, at English), unless the locale is `C` or `POSIX` itself
    /// (not `C.UTF-8`, as glibc has it); else the locale, as POSIX orders
    /// it for messages: `LC_ALL`, then `LC_MESSAGES`, then `LANG`; `C`
    /// when none is set.
    public static func fromEnvironment(_ environment: [String: String]) -> AppLocale {
        var locale = AppLocale("C")
        var isC = true
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = environment[name], !value.isEmpty {
                isC = value == "C" || value == "POSIX" || AppLocale(validating: value, unknownNumbers: .ignored) == nil
                locale = AppLocale(value)
                break
            }
        }
        guard !isC, let languages = environment["LANGUAGE"] else { return locale }
        for entry in languages.split(separator: ":") {
            guard let listed = AppLocale(validating: String(entry)) else { continue }
            let code = entry.prefix { $0 != "_" && $0 != "-" && $0 != "." && $0 != "@" }
            if code == "C" || code == "POSIX" { return AppLocale("C") }
            // One without a translation is passed over (English is one).
            if listed.language != "en" || code.lowercased() == "en" { return listed }
        }
        return locale
    }
}
