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
        XCTAssertEqual(AppLocale("pt_PT").language, "pt-BR")
        XCTAssertEqual(AppLocale("el_GR.UTF-8").language, "el")
        XCTAssertEqual(AppLocale("de_AT@euro").language, "de")
        XCTAssertEqual(AppLocale("es-ES").identifier, "es_ES")
        XCTAssertEqual(AppLocale("C").language, "en")
        XCTAssertEqual(AppLocale("POSIX").identifier, "en_US_POSIX")
        XCTAssertEqual(AppLocale("ja_JP.UTF-8").language, "en")
    }

    func test_locale_fromEnvironmentPrefersLC_ALLThenLC_MESSAGESThenLANG() {
        XCTAssertEqual(AppLocale.fromEnvironment(["LANG": "el_GR", "LC_MESSAGES": "es_ES", "LC_ALL": "de_DE"]).language, "de")
        XCTAssertEqual(AppLocale.fromEnvironment(["LANG": "el_GR", "LC_MESSAGES": "es_ES"]).language, "es")
        XCTAssertEqual(AppLocale.fromEnvironment(["LANG": "el_GR", "LC_ALL": ""]).language, "el")
        XCTAssertEqual(AppLocale.fromEnvironment([:]).language, "en")
    }

    func test_string_fallsBackToEnglish() {
        XCTAssertEqual(Localized.string(.feedTitle, locale: AppLocale("ja_JP")), "My Feed")
        XCTAssertEqual(Localized.string(.feedTitle, locale: AppLocale("pt_BR")), "Meu Feed")
    }
}
