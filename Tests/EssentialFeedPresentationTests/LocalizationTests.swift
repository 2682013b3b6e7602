import EssentialFeed
import EssentialFeedPresentation
import XCTest

/// The case study's localization test: every key has a value in every language.
final class LocalizationTests: XCTestCase {
    func test_everyKeyHasANonEmptyValueInEveryLanguage() {
        for language in Localized.languages {
            for key in Localized.Key.allCases {
                let value = Localized.value(key, language: language)
                XCTAssertNotNil(value, "missing \(key.rawValue) in \(language)")
                XCTAssertFalse(value?.isEmpty ?? true, "empty \(key.rawValue) in \(language)")
            }
        }
    }

    func test_caseStudyStrings_areExactInEnglishPortugueseAndGreek() {
        let expected: [(String, Localized.Key, String)] = [
            ("en", .feedTitle, "My Feed"),
            ("en", .commentsTitle, "Comments"),
            ("en", .connectionError, "Couldn't connect to server"),
            ("pt-BR", .feedTitle, "Meu Feed"),
            ("pt-BR", .commentsTitle, "Comentários"),
            ("pt-BR", .connectionError, "Não foi possível conectar com o servidor"),
            ("el", .feedTitle, "Το Feed μου"),
            ("el", .commentsTitle, "Σχόλια"),
            ("el", .connectionError, "Δεν ήταν δυνατή η σύνδεση στο διακομιστή"),
        ]
        for (language, key, value) in expected {
            XCTAssertEqual(Localized.value(key, language: language), value, "\(language) \(key.rawValue)")
        }
    }

    func test_locale_reducesPOSIXNamesToSupportedLanguages() {
        XCTAssertEqual(AppLocale("pt_BR.UTF-8").language, "pt-BR")
        XCTAssertEqual(AppLocale("pt_BR.UTF-8").identifier, "pt_BR")
        XCTAssertEqual(AppLocale("pt_PT").language, "pt-PT")
        XCTAssertEqual(AppLocale("pt_MZ").language, "pt-PT")
        XCTAssertEqual(AppLocale("pt").language, "pt-BR")
        XCTAssertEqual(AppLocale("pt_PT.UTF-8").identifier, "pt_PT")
        XCTAssertEqual(Localized.string(.feedTitle, locale: AppLocale("pt_PT")), "O Meu Feed")
        XCTAssertEqual(AppLocale("el_GR.UTF-8").language, "el")
        XCTAssertEqual(AppLocale("de_AT@euro").language, "de")
        XCTAssertEqual(AppLocale("es-ES").identifier, "es_ES")
        XCTAssertEqual(AppLocale("C").language, "en")
        XCTAssertEqual(AppLocale("POSIX").identifier, "en_US_POSIX")
        XCTAssertEqual(AppLocale("ja_JP.UTF-8").language, "ja")
        XCTAssertEqual(AppLocale("zh_CN.UTF-8").language, "zh-Hans")
        XCTAssertEqual(AppLocale("zh_TW").language, "zh-Hant")
        XCTAssertEqual(AppLocale("zh-Hant-HK").identifier, "zh_Hant_HK")
        XCTAssertEqual(AppLocale("tl_PH.UTF-8").language, "fil")
        XCTAssertEqual(AppLocale("yue_HK").language, "yue")
    }

    func test_locale_isMatchedWithoutRegardToLetterCase() {
        for name in ["PT_br", "pt_br.utf8", "PT-BR", "pt_BR"] {
            XCTAssertEqual(AppLocale(name).identifier, "pt_BR", name)
            XCTAssertEqual(AppLocale(name).language, "pt-BR", name)
        }
        XCTAssertEqual(AppLocale("ZH-hans-cn").identifier, "zh_Hans_CN")
    }

    func test_locale_withoutATranslation_isEnglishForTitlesAndDates() {
        for name in ["sq_AL", "xx", "haw_US.UTF-8"] {
            XCTAssertEqual(AppLocale(name).language, "en", name)
            XCTAssertEqual(AppLocale(name).identifier, "en_US_POSIX", name)
        }
    }

    func test_locale_validating_refusesWhatIsNotALocaleName() {
        for name in ["!!", "p", "pt_BR_XX_YY", "pt_BR_POSIX_X", "pt__BR", "pt_BR.", "1234", "en US", "pt_BR@", "toolong"] {
            XCTAssertNil(AppLocale(validating: name), name)
            XCTAssertEqual(AppLocale(name).language, "en", "a malformed name in the environment counts as C: \(name)")
        }
        for name in ["C", "POSIX", "C.UTF-8", "pt_BR.UTF-8@euro", "es-419", "sr_Latn_RS", "en_US_POSIX"] {
            XCTAssertNotNil(AppLocale(validating: name), name)
        }
    }

    /// The digits a tag's `-u-nu-` or a name's `@numbers=` choose, as ICU
    /// takes them (`ar-EG-u-nu-latn` was a usage error, and `@numbers=`
    /// passed over: an Egyptian reader who writes Western digits got ٣).
    func test_locale_numberingSystem_choosesTheDigitsOfDates() {
        XCTAssertEqual(AppLocale("ar-EG-u-nu-latn").identifier, "ar_EG@numbers=latn")
        XCTAssertEqual(AppLocale("ar-EG-u-nu-latn").language, "ar")
        XCTAssertEqual(AppLocale("ar_EG.UTF-8@numbers=latn").identifier, "ar_EG@numbers=latn")
        XCTAssertEqual(AppLocale("fa-IR-u-ca-persian-nu-latn-x-mine").identifier, "fa_IR@numbers=latn")
        XCTAssertEqual(AppLocale("de-DE-u-co-phonebk").identifier, "de_DE")
        XCTAssertEqual(AppLocale("en-x-private").identifier, "en")
        let now = Timestamp(iso8601: "2020-05-20T11:24:59Z")!, before = Timestamp(seconds: now.seconds - 3 * 86_400)
        XCTAssertEqual(RelativeDateFormatter(locale: AppLocale("ar_EG")).string(for: before, relativeTo: now), "قبل ٣ أيام")
        XCTAssertEqual(RelativeDateFormatter(locale: AppLocale("ar-EG-u-nu-latn")).string(for: before, relativeTo: now), "قبل 3 أيام")
        XCTAssertEqual(RelativeDateFormatter(locale: AppLocale("ar@numbers=latn")).string(for: before, relativeTo: now), "قبل 3 أيام")
        XCTAssertEqual(RelativeDateFormatter(locale: AppLocale("hi_IN@numbers=deva")).string(for: before, relativeTo: now), "३ दिन पहले")
        for name in ["ar-EG-u", "ar-EG-u-nu-xyz", "ar_EG@numbers=xyz", "en-u-nu-toolongvalue", "en-x", "en-a-b-c", "en-u-nu-latn-"] {
            XCTAssertNil(AppLocale(validating: name), name)
        }
        // In the environment, a numbering system ICU has not is passed over, not the locale.
        XCTAssertEqual(AppLocale("ar_EG.UTF-8@numbers=xyz").identifier, "ar_EG")
        XCTAssertEqual(AppLocale.fromEnvironment(["LANG": "ar_EG.UTF-8@numbers=xyz"]).language, "ar")
        XCTAssertEqual(AppLocale.fromEnvironment(["LANG": "ar_EG.UTF-8@numbers=latn"]).identifier, "ar_EG@numbers=latn")
    }

    /// No screen mixes two languages: every translated language is one ICU
    /// formats relative dates in (not in English), and its titles are its own.
    func test_everyTranslatedLanguage_hasItsOwnTitlesAndDates() {
        let now = Timestamp(iso8601: "2020-05-20T11:24:59Z")!
        let english = RelativeDateFormatter(locale: AppLocale("en")).string(for: Timestamp(seconds: now.seconds - 86_400), relativeTo: now)
        XCTAssertGreaterThanOrEqual(Localized.languages.count, 20)
        for language in Localized.languages where language != "en" {
            let locale = AppLocale(language)
            XCTAssertEqual(locale.language, language)
            let date = RelativeDateFormatter(locale: locale).string(for: Timestamp(seconds: now.seconds - 86_400), relativeTo: now)
            XCTAssertNotEqual(date, english, "ICU formats no dates in \(language)")
            XCTAssertNotEqual(Localized.string(.feedTitle, locale: locale), "My Feed", language)
            XCTAssertNotEqual(Localized.string(.connectionError, locale: locale), "Couldn't connect to server", language)
        }
        for required in ["es", "fr", "de", "it", "ja", "zh-Hans", "ru", "ar", "tr", "pl", "ko", "nl", "hi", "id", "vi", "pt-BR", "el"] {
            XCTAssertTrue(Localized.languages.contains(required), required)
        }
    }

    /// LANGUAGE, GNU gettext's list of languages for messages, comes
    /// before the locale unless the locale is C: its first entry with a
    /// translation wins (a Catalan user with `LANGUAGE=ca:es` reads Spanish
    /// in every gettext program, and read English here: found by the hunt).
    func test_locale_fromEnvironment_takesTheFirstTranslatedLanguageOfLANGUAGE_unlessTheLocaleIsC() {
        XCTAssertEqual(AppLocale.fromEnvironment(["LANG": "ca_ES.UTF-8", "LANGUAGE": "ca:es"]).language, "es")
        XCTAssertEqual(AppLocale.fromEnvironment(["LANG": "en_US.UTF-8", "LANGUAGE": "de:en"]).language, "de")
        XCTAssertEqual(AppLocale.fromEnvironment(["LANG": "en_US.UTF-8", "LANGUAGE": "de:en"]).identifier, "de")
        XCTAssertEqual(AppLocale.fromEnvironment(["LC_ALL": "el_GR.UTF-8", "LANGUAGE": "pt_BR"]).language, "pt-BR")
        XCTAssertEqual(AppLocale.fromEnvironment(["LANG": "de_DE.UTF-8", "LANGUAGE": "xx:en_GB:de"]).language, "en")
        XCTAssertEqual(AppLocale.fromEnvironment(["LANG": "de_DE.UTF-8", "LANGUAGE": "xx::not a name"]).language, "de")
        XCTAssertEqual(AppLocale.fromEnvironment(["LANG": "de_DE.UTF-8", "LANGUAGE": ""]).language, "de")
        for c in ["C", "POSIX"] {
            XCTAssertEqual(AppLocale.fromEnvironment(["LANG": c, "LANGUAGE": "de"]).language, "en", c)
        }
        // glibc takes C.UTF-8 for a locale of its own (found in review);
        // a C in the list stops the search.
        XCTAssertEqual(AppLocale.fromEnvironment(["LANG": "C.UTF-8", "LANGUAGE": "de"]).language, "de")
        XCTAssertEqual(AppLocale.fromEnvironment(["LANG": "de_DE.UTF-8", "LANGUAGE": "C:es"]).language, "en")
        XCTAssertEqual(AppLocale.fromEnvironment(["LANGUAGE": "de"]).language, "en", "no locale is C")
    }

    func test_locale_fromEnvironmentPrefersLC_ALLThenLC_MESSAGESThenLANG() {
        XCTAssertEqual(AppLocale.fromEnvironment(["LANG": "el_GR", "LC_MESSAGES": "es_ES", "LC_ALL": "de_DE"]).language, "de")
        XCTAssertEqual(AppLocale.fromEnvironment(["LANG": "el_GR", "LC_MESSAGES": "es_ES"]).language, "es")
        XCTAssertEqual(AppLocale.fromEnvironment(["LANG": "el_GR", "LC_ALL": ""]).language, "el")
        XCTAssertEqual(AppLocale.fromEnvironment([:]).language, "en")
    }

    func test_string_fallsBackToEnglish() {
        XCTAssertEqual(Localized.string(.feedTitle, locale: AppLocale("sq_AL")), "My Feed")
        XCTAssertEqual(Localized.string(.feedTitle, locale: AppLocale("pt_BR")), "Meu Feed")
    }
}
