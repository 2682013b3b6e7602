import EssentialFeed

/// The user-facing strings of the case study, in every supported language.
///
/// The tables live in source so that an installed binary always finds them.
/// A test proves every key has a value in every language.
public enum Localized {
    public enum Key: String, CaseIterable, Sendable {
        /// The title of the feed.
        case feedTitle = "FEED_VIEW_TITLE"
        /// The title of an image's comments.
        case commentsTitle = "IMAGE_COMMENTS_VIEW_TITLE"
        /// The message shown when the feed could not be loaded.
        case connectionError = "GENERIC_CONNECTION_ERROR"
        /// Shown while waiting for the first record.
        case loading = "LOADING"
        /// What an image with neither description nor location is called
        /// (an Atom entry's title, an image's text alternative).
        case image = "IMAGE"
    }

    /// The supported languages, as BCP 47 tags; the first is the fallback.
    /// The 20 most spoken languages that ICU formats dates in, and a few
    /// more, so that no screen mixes a title in one language with dates in
    /// another.
    public static let languages = ["en", "pt-BR", "pt-PT", "el", "es", "de", "fr", "it", "ja", "zh-Hans", "zh-Hant", "yue", "ru", "uk", "ar", "fa", "ur", "tr", "pl", "ko", "nl", "hi", "mr", "bn", "ta", "te", "id", "vi", "th", "sw", "fil"]

    static let tables: [String: [Key: String]] = [
        "en": [
            .feedTitle: "My Feed",
            .commentsTitle: "Comments",
            .connectionError: "Couldn't connect to server",
            .loading: "Loading…",
            .image: "Image",
        ],
        "pt-BR": [
            .feedTitle: "Meu Feed",
            .commentsTitle: "Comentários",
            .connectionError: "Não foi possível conectar com o servidor",
            .loading: "Carregando…",
            .image: "Imagem",
        ],
        // European Portuguese, which every Portuguese-speaking region but
        // Brazil follows (CLDR's parent of pt_AO, pt_MZ, …): pt_PT read
        // Brazilian titles over its own dates (found by the hunt).
        "pt-PT": [
            .feedTitle: "O Meu Feed",
            .commentsTitle: "Comentários",
            .connectionError: "Não foi possível ligar ao servidor",
            .loading: "A carregar…",
            .image: "Imagem",
        ],
        "el": [
            .feedTitle: "Το Feed μου",
            .commentsTitle: "Σχόλια",
            .connectionError: "Δεν ήταν δυνατή η σύνδεση στο διακομιστή",
            .loading: "Φόρτωση…",
            .image: "Εικόνα",
        ],
        "es": [
            .feedTitle: "Mi Feed",
            .commentsTitle: "Comentarios",
            .connectionError: "No se pudo conectar con el servidor",
            .loading: "Cargando…",
            .image: "Imagen",
        ],
        "de": [
            .feedTitle: "Mein Feed",
            .commentsTitle: "Kommentare",
            .connectionError: "Verbindung zum Server nicht möglich",
            .loading: "Wird geladen…",
            .image: "Bild",
        ],
        "fr": [
            .feedTitle: "Mon flux",
            .commentsTitle: "Commentaires",
            .connectionError: "Impossible de se connecter au serveur",
            .loading: "Chargement…",
            .image: "Image",
        ],
        "it": [
            .feedTitle: "Il mio feed",
            .commentsTitle: "Commenti",
            .connectionError: "Impossibile connettersi al server",
            .loading: "Caricamento…",
            .image: "Immagine",
        ],
        "ja": [
            .feedTitle: "マイフィード",
            .commentsTitle: "コメント",
            .connectionError: "サーバーに接続できませんでした",
            .loading: "読み込み中…",
            .image: "画像",
        ],
        "zh-Hans": [
            .feedTitle: "我的动态",
            .commentsTitle: "评论",
            .connectionError: "无法连接到服务器",
            .loading: "正在加载…",
            .image: "图片",
        ],
        "zh-Hant": [
            .feedTitle: "我的動態",
            .commentsTitle: "留言",
            .connectionError: "無法連線到伺服器",
            .loading: "正在載入…",
            .image: "圖片",
        ],
        "yue": [
            .feedTitle: "我嘅動態",
            .commentsTitle: "留言",
            .connectionError: "連唔到伺服器",
            .loading: "載入緊…",
            .image: "圖片",
        ],
        "fil": [
            .feedTitle: "Aking Feed",
            .commentsTitle: "Mga Komento",
            .connectionError: "Hindi makakonekta sa server",
            .loading: "Naglo-load…",
            .image: "Larawan",
        ],
        "ru": [
            .feedTitle: "Моя лента",
            .commentsTitle: "Комментарии",
            .connectionError: "Не удалось подключиться к серверу",
            .loading: "Загрузка…",
            .image: "Изображение",
        ],
        "uk": [
            .feedTitle: "Моя стрічка",
            .commentsTitle: "Коментарі",
            .connectionError: "Не вдалося під’єднатися до сервера",
            .loading: "Завантаження…",
            .image: "Зображення",
        ],
        "ar": [
            .feedTitle: "موجزي",
            .commentsTitle: "التعليقات",
            .connectionError: "تعذّر الاتصال بالخادم",
            .loading: "جارٍ التحميل…",
            .image: "صورة",
        ],
        "fa": [
            .feedTitle: "فید من",
            .commentsTitle: "نظرها",
            .connectionError: "اتصال به سرور ممکن نشد",
            .loading: "در حال بارگیری…",
            .image: "تصویر",
        ],
        "ur": [
            .feedTitle: "میری فیڈ",
            .commentsTitle: "تبصرے",
            .connectionError: "سرور سے رابطہ نہیں ہو سکا",
            .loading: "لوڈ ہو رہا ہے…",
            .image: "تصویر",
        ],
        "tr": [
            .feedTitle: "Akışım",
            .commentsTitle: "Yorumlar",
            .connectionError: "Sunucuya bağlanılamadı",
            .loading: "Yükleniyor…",
            .image: "Görsel",
        ],
        "pl": [
            .feedTitle: "Mój kanał",
            .commentsTitle: "Komentarze",
            .connectionError: "Nie można połączyć się z serwerem",
            .loading: "Wczytywanie…",
            .image: "Obraz",
        ],
        "ko": [
            .feedTitle: "내 피드",
            .commentsTitle: "댓글",
            .connectionError: "서버에 연결할 수 없습니다",
            .loading: "불러오는 중…",
            .image: "이미지",
        ],
        "nl": [
            .feedTitle: "Mijn feed",
            .commentsTitle: "Reacties",
            .connectionError: "Kan geen verbinding maken met de server",
            .loading: "Laden…",
            .image: "Afbeelding",
        ],
        "hi": [
            .feedTitle: "मेरी फ़ीड",
            .commentsTitle: "टिप्पणियाँ",
            .connectionError: "सर्वर से कनेक्ट नहीं हो सका",
            .loading: "लोड हो रहा है…",
            .image: "छवि",
        ],
        "mr": [
            .feedTitle: "माझे फीड",
            .commentsTitle: "टिप्पण्या",
            .connectionError: "सर्व्हरशी कनेक्ट करता आले नाही",
            .loading: "लोड होत आहे…",
            .image: "प्रतिमा",
        ],
        "bn": [
            .feedTitle: "আমার ফিড",
            .commentsTitle: "মন্তব্য",
            .connectionError: "সার্ভারের সাথে সংযোগ করা যায়নি",
            .loading: "লোড হচ্ছে…",
            .image: "ছবি",
        ],
        "ta": [
            .feedTitle: "எனது ஊட்டம்",
            .commentsTitle: "கருத்துகள்",
            .connectionError: "சேவையகத்துடன் இணைக்க முடியவில்லை",
            .loading: "ஏற்றுகிறது…",
            .image: "படம்",
        ],
        "te": [
            .feedTitle: "నా ఫీడ్",
            .commentsTitle: "వ్యాఖ్యలు",
            .connectionError: "సర్వర్‌కు కనెక్ట్ చేయడం సాధ్యపడలేదు",
            .loading: "లోడ్ అవుతోంది…",
            .image: "చిత్రం",
        ],
        "id": [
            .feedTitle: "Feed Saya",
            .commentsTitle: "Komentar",
            .connectionError: "Tidak dapat terhubung ke server",
            .loading: "Memuat…",
            .image: "Gambar",
        ],
        "vi": [
            .feedTitle: "Bảng tin của tôi",
            .commentsTitle: "Bình luận",
            .connectionError: "Không thể kết nối với máy chủ",
            .loading: "Đang tải…",
            .image: "Hình ảnh",
        ],
        "th": [
            .feedTitle: "ฟีดของฉัน",
            .commentsTitle: "ความคิดเห็น",
            .connectionError: "ไม่สามารถเชื่อมต่อกับเซิร์ฟเวอร์ได้",
            .loading: "กำลังโหลด…",
            .image: "รูปภาพ",
        ],
        "sw": [
            .feedTitle: "Mlisho Wangu",
            .commentsTitle: "Maoni",
            .connectionError: "Imeshindwa kuunganisha kwenye seva",
            .loading: "Inapakia…",
            .image: "Picha",
        ],
    ]

    /// The string for `key` in the language that best matches `locale`
    /// (e.g. `pt_BR.UTF-8`, `el_GR`, `es`), English when none matches.
    public static func string(_ key: Key, locale: AppLocale) -> String {
        tables[locale.language]?[key] ?? tables["en"]![key]!
    }

    /// The value of `key` in exactly `language`, or nil when missing (for tests).
    public static func value(_ key: Key, language: String) -> String? {
        tables[language]?[key]
    }
}
