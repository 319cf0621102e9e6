package tweetgen

// language is what the generator knows of one language: words to write
// tweets with, hashtags, people's names and places.
type language struct {
	tag string
	// spaced is false for scripts written without spaces between words.
	spaced bool
	// words are ordinary words. None of the probe words of oracle.go that
	// must come out of hidden or excluded text appear in any list.
	words []string
	// stops end sentences.
	stops []string
	// tags are hashtags, without '#'.
	tags []string
	// first and last make display names; handles make screen names.
	first, last, handles []string
	// locations are user profile locations.
	locations []string
	// city is the index in cities of the language's usual place.
	cities []int
}

// Probe words: each appears only where the oracle expects it to count (or,
// for the last three, not to count), so that a term query for it tests one
// rule of the parser. See oracle.go.
const (
	probeExtended = "serendipity"  // only in the hidden tail of v1.1 extended tweets
	probeV2RT     = "lighthouse"   // only in the hidden tail of v2 retweeted tweets
	probeDesc     = "photographer" // only in user descriptions: never indexed
	probeDead     = "quarantine"   // only in dead-lettered items: never indexed
	probeQuote    = "quokka"       // only in quoted tweets: never indexed as the quote's text
)

var emojis = []string{"😂", "❤️", "🔥", "🙏", "😍", "👍", "✨", "🎉", "😭", "🥺", "💯", "😊", "🤔", "👀", "🙌"}

var langEN = &language{
	tag: "en", spaced: true,
	words: []string{
		"the", "a", "and", "about", "tweet", "today", "this", "is", "so", "good", "new", "just", "got",
		"home", "really", "love", "game", "team", "night", "morning", "coffee", "weekend", "people",
		"time", "great", "thanks", "everyone", "watching", "music", "album", "release", "data",
		"stream", "pipeline", "index", "query", "cluster", "open", "source", "project", "working",
		"on", "with", "for", "my", "our", "you", "can't", "wait", "best", "city", "weather", "rain",
		"sunny", "train", "late", "again", "lunch", "dinner", "friends", "family", "happy", "birthday",
		"news", "breaking", "update", "election", "vote", "match", "goal", "win", "season", "finally",
		"what", "a", "day", "in", "at", "of", "to", "we", "are", "it", "was", "amazing", "honestly",
		"Tom &amp; Jerry", "life", "book", "reading", "movie", "trailer", "launch", "event",
	},
	stops:     []string{".", "!", "?", "!!", "..."},
	tags:      []string{"ApacheFlink", "ApacheAccumulo", "BigData", "NowPlaying", "MondayMotivation", "NFL", "WorldSeries", "Halloween", "DataEngineering", "OpenSource", "Election2026", "TBT"},
	first:     []string{"Emily", "James", "Olivia", "Liam", "Sophia", "Noah", "Ava", "Mason", "Chloe", "Ethan", "Grace", "Lucas", "Harper", "Jack", "Zoe", "Ryan"},
	last:      []string{"Carter", "Smith", "Johnson", "Brown", "Walker", "Hughes", "Turner", "Parker", "Evans", "Collins", "Bennett", "Reed", "Morgan", "Bailey"},
	handles:   []string{"emily", "jamie", "liv", "liam", "sophie", "noah", "ava", "mase", "chlo", "ethan", "grace", "lucas", "harps", "jack", "zoe", "ryan", "datanerd", "streamfan", "nyc", "ldn"},
	locations: []string{"London, England", "New York, NY", "Los Angeles, CA", "Toronto, Ontario", "Manchester", "Chicago, IL", "", "Earth", "Sydney, New South Wales"},
	cities:    []int{2, 3, 4},
}

var langJA = &language{
	tag: "ja", spaced: false,
	words: []string{
		"今日", "は", "東京", "で", "ラーメン", "を", "食べた", "楽しい", "です", "ありがとう", "ございます",
		"仕事", "電車", "猫", "かわいい", "最高", "新しい", "映画", "見た", "明日", "週末", "友達", "音楽",
		"雨", "天気", "すごい", "やばい", "眠い", "おはよう", "京都", "旅行", "東京タワー", "ライブ", "行きたい",
		"コーヒー", "美味しい", "本当に", "大好き", "がんばる", "データ", "検索", "写真", "新宿", "渋谷",
	},
	stops:     []string{"。", "！", "？", "w", "〜"},
	tags:      []string{"拡散希望", "今日の一枚", "ハロウィン", "東京", "ApacheFlink", "おはようVTuber"},
	first:     []string{"さくら", "ゆうき", "はると", "あおい", "そうた", "ひなた", "れん", "みお"},
	last:      []string{"田中", "佐藤", "鈴木", "高橋", "伊藤", "渡辺", "山本", "中村"},
	handles:   []string{"sakura", "yuki", "haruto", "aoi", "sota", "hinata", "ren", "mio", "tanaka", "neko"},
	locations: []string{"東京都 新宿区", "大阪", "日本", "", "横浜", "福岡"},
	cities:    []int{0, 1},
}

var langES = &language{
	tag: "es", spaced: true,
	words: []string{
		"hola", "canción", "mañana", "fútbol", "gracias", "qué", "día", "muy", "bueno", "partido",
		"amigos", "música", "vida", "hoy", "gente", "ciudad", "trabajo", "feliz", "nuevo", "siempre",
		"corazón", "la", "el", "de", "que", "en", "los", "con", "para", "por", "una", "es", "mejor",
		"noche", "semana", "domingo", "familia", "increíble", "golazo", "vamos", "equipo", "lluvia",
		"café", "escuchando", "nueva", "todos", "año", "país",
	},
	stops:     []string{".", "!", "?", "!!", "..."},
	tags:      []string{"FelizDomingo", "LaLiga", "DíaDeMuertos", "Madrid", "México", "BigData"},
	first:     []string{"María", "José", "Lucía", "Carlos", "Sofía", "Javier", "Valentina", "Diego", "Camila", "Mateo"},
	last:      []string{"García", "Fernández", "López", "Martínez", "Sánchez", "Pérez", "Gómez", "Ruiz"},
	handles:   []string{"maria", "jose", "lucia", "carlos", "sofi", "javi", "vale", "diego", "cami", "mateo"},
	locations: []string{"Madrid, España", "Ciudad de México", "Buenos Aires, Argentina", "Bogotá, Colombia", "", "Sevilla"},
	cities:    []int{5, 6, 7},
}

var langAR = &language{
	tag: "ar", spaced: true,
	words: []string{
		"مرحبا", "اليوم", "جميل", "الحمد", "لله", "شكرا", "صباح", "الخير", "الرياض", "القاهرة", "كرة",
		"القدم", "مباراة", "الله", "حب", "الحياة", "أهلا", "وسهلا", "جدا", "الطقس", "العمل", "الأصدقاء",
		"في", "من", "على", "مع", "هذا", "كل", "يوم", "سعيد", "الجديد", "الفريق", "الهلال", "الأهلي",
	},
	stops:     []string{".", "!", "؟", "..."},
	tags:      []string{"السعودية", "الرياض", "مصر", "الهلال", "عاجل"},
	first:     []string{"محمد", "أحمد", "فاطمة", "عبدالله", "نورة", "خالد", "سارة", "عمر"},
	last:      []string{"العتيبي", "الشمري", "القحطاني", "حسن", "علي", "المصري", "الدوسري"},
	handles:   []string{"mohammed", "ahmed", "fatima", "abdullah", "noura", "khaled", "sara", "omar"},
	locations: []string{"الرياض, المملكة العربية السعودية", "القاهرة, مصر", "جدة", "", "دبي"},
	cities:    []int{8, 9},
}

var langPT = &language{
	tag: "pt", spaced: true,
	words: []string{
		"hoje", "muito", "bom", "obrigado", "gente", "jogo", "time", "amor", "vida", "dia", "noite",
		"saudade", "trabalho", "música", "festa", "chuva", "cidade", "amigos", "família", "novo",
		"que", "de", "não", "com", "para", "uma", "mais", "tudo", "demais", "incrível", "golaço",
	},
	stops:     []string{".", "!", "?", "kkkk", "..."},
	tags:      []string{"BBB26", "Brasileirão", "SãoPaulo", "Flamengo"},
	first:     []string{"Ana", "João", "Beatriz", "Pedro", "Larissa", "Gabriel", "Júlia", "Rafael"},
	last:      []string{"Silva", "Santos", "Oliveira", "Souza", "Costa", "Pereira", "Lima"},
	handles:   []string{"ana", "joao", "bia", "pedro", "lari", "gabi", "ju", "rafa"},
	locations: []string{"São Paulo, Brasil", "Rio de Janeiro", "Lisboa, Portugal", "", "Brasil"},
	cities:    []int{10},
}

var langIN = &language{
	tag: "in", spaced: true,
	words: []string{
		"hari", "ini", "saya", "kamu", "terima", "kasih", "banget", "makan", "malam", "pagi", "kerja",
		"teman", "macet", "hujan", "semangat", "lagi", "sama", "yang", "dan", "tidak", "bisa", "mau",
	},
	stops:     []string{".", "!", "?", "wkwk"},
	tags:      []string{"Jakarta", "Indonesia", "Persib"},
	first:     []string{"Putri", "Budi", "Siti", "Agus", "Dewi", "Rizky"},
	last:      []string{"Santoso", "Wijaya", "Saputra", "Lestari"},
	handles:   []string{"putri", "budi", "siti", "agus", "dewi", "rizky"},
	locations: []string{"Jakarta, Indonesia", "Bandung", "Surabaya", ""},
	cities:    []int{11},
}

var langKO = &language{
	tag: "ko", spaced: true,
	words: []string{
		"오늘", "정말", "너무", "좋아요", "감사합니다", "사랑해", "날씨", "커피", "친구", "음악", "방송",
		"콘서트", "최고", "진짜", "내일", "주말", "서울", "맛있다", "행복", "노래",
	},
	stops:     []string{".", "!", "?", "ㅋㅋ"},
	tags:      []string{"BTS", "서울", "KPOP"},
	first:     []string{"지민", "서연", "민준", "하은", "도윤", "수아"},
	last:      []string{"김", "이", "박", "최"},
	handles:   []string{"jimin", "seoyeon", "minjun", "haeun", "doyun", "sua"},
	locations: []string{"서울", "Seoul, Korea", "부산", ""},
	cities:    []int{12},
}

var langTH = &language{
	tag: "th", spaced: false,
	words: []string{
		"วันนี้", "สวัสดี", "ขอบคุณ", "มาก", "ครับ", "ค่ะ", "อร่อย", "กรุงเทพ", "ฝนตก", "เพื่อน", "เพลง",
		"รัก", "ดีใจ", "ทำงาน", "กิน", "ข้าว", "สนุก", "พรุ่งนี้",
	},
	stops:     []string{" ", "!", "55555"},
	tags:      []string{"ไทย", "กรุงเทพ"},
	first:     []string{"สมชาย", "มาลี", "ปิยะ", "นภา"},
	last:      []string{"ใจดี", "สุขสันต์", "ศรีสุข"},
	handles:   []string{"somchai", "malee", "piya", "napa"},
	locations: []string{"กรุงเทพมหานคร", "Bangkok, Thailand", ""},
	cities:    []int{13},
}

var langFR = &language{
	tag: "fr", spaced: true,
	words: []string{
		"bonjour", "aujourd'hui", "merci", "beaucoup", "vraiment", "trop", "bien", "match", "soirée",
		"week-end", "musique", "ville", "travail", "pluie", "café", "amis", "nouveau", "le", "la",
		"les", "et", "est", "pour", "avec", "une", "très", "génial",
	},
	stops:     []string{".", "!", "?", "..."},
	tags:      []string{"Paris", "PSG", "Ligue1"},
	first:     []string{"Camille", "Louis", "Léa", "Hugo", "Manon", "Jules"},
	last:      []string{"Martin", "Bernard", "Dubois", "Moreau", "Laurent"},
	handles:   []string{"camille", "louis", "lea", "hugo", "manon", "jules"},
	locations: []string{"Paris, France", "Lyon", "Marseille", ""},
	cities:    []int{14},
}

var langTR = &language{
	tag: "tr", spaced: true,
	words: []string{
		"bugün", "çok", "güzel", "teşekkürler", "maç", "hava", "arkadaşlar", "müzik", "akşam", "sabah",
		"iş", "yeni", "harika", "ve", "bir", "bu", "için", "gibi", "ama",
	},
	stops:     []string{".", "!", "?"},
	tags:      []string{"Galatasaray", "Fenerbahçe", "istanbul"},
	first:     []string{"Elif", "Mehmet", "Zeynep", "Mustafa", "Ayşe", "Emre"},
	last:      []string{"Yılmaz", "Kaya", "Demir", "Şahin", "Çelik"},
	handles:   []string{"elif", "mehmet", "zeynep", "mustafa", "ayse", "emre"},
	locations: []string{"İstanbul", "Ankara", "Türkiye", ""},
	cities:    []int{15},
}

var langTL = &language{
	tag: "tl", spaced: true,
	words: []string{
		"salamat", "po", "ang", "ganda", "ngayon", "sobrang", "saya", "kain", "tayo", "bukas", "trabaho",
		"ulan", "kaibigan", "grabe", "talaga", "naman", "mahal", "kita",
	},
	stops:     []string{".", "!", "?", "hahaha"},
	tags:      []string{"Manila", "PBB"},
	first:     []string{"Andrea", "Miguel", "Bea", "Paolo", "Kristine"},
	last:      []string{"Reyes", "Cruz", "Bautista", "Ramos", "Mendoza"},
	handles:   []string{"andrea", "miguel", "bea", "paolo", "tin"},
	locations: []string{"Manila", "Quezon City", "Philippines", ""},
	cities:    []int{16},
}

var langRU = &language{
	tag: "ru", spaced: true,
	words: []string{
		"привет", "сегодня", "очень", "спасибо", "хорошо", "погода", "друзья", "музыка", "работа",
		"вечер", "утро", "новый", "и", "в", "на", "это", "все", "круто",
	},
	stops:     []string{".", "!", "?", "..."},
	tags:      []string{"Москва", "футбол"},
	first:     []string{"Анна", "Иван", "Мария", "Дмитрий", "Ольга"},
	last:      []string{"Иванов", "Смирнова", "Кузнецов", "Попова"},
	handles:   []string{"anna", "ivan", "masha", "dima", "olga"},
	locations: []string{"Москва", "Санкт-Петербург", "Россия", ""},
	cities:    []int{17},
}

var langDE = &language{
	tag: "de", spaced: true,
	words: []string{
		"heute", "sehr", "danke", "schön", "Spiel", "Wetter", "Freunde", "Musik", "Arbeit", "Abend",
		"Morgen", "neue", "und", "ist", "mit", "für", "das", "die", "der", "wirklich", "Straße",
	},
	stops:     []string{".", "!", "?"},
	tags:      []string{"Bundesliga", "Berlin", "Tatort"},
	first:     []string{"Lukas", "Anna", "Felix", "Lena", "Jonas", "Marie"},
	last:      []string{"Müller", "Schmidt", "Schneider", "Fischer", "Weber"},
	handles:   []string{"lukas", "anna", "felix", "lena", "jonas", "marie"},
	locations: []string{"Berlin, Deutschland", "München", "Hamburg", ""},
	cities:    []int{18},
}

var langHI = &language{
	tag: "hi", spaced: true,
	words: []string{
		"आज", "बहुत", "अच्छा", "धन्यवाद", "दोस्त", "मौसम", "गाना", "काम", "खाना", "मैच", "नया", "और", "है", "में",
	},
	stops:     []string{"।", "!", "?"},
	tags:      []string{"India", "Cricket"},
	first:     []string{"राहुल", "प्रिया", "अमित", "नेहा"},
	last:      []string{"शर्मा", "वर्मा", "गुप्ता", "सिंह"},
	handles:   []string{"rahul", "priya", "amit", "neha"},
	locations: []string{"Mumbai, India", "New Delhi", "India", ""},
	cities:    []int{19},
}

var langIT = &language{
	tag: "it", spaced: true,
	words: []string{
		"oggi", "molto", "grazie", "bello", "partita", "tempo", "amici", "musica", "lavoro", "sera",
		"nuovo", "e", "che", "per", "con", "una", "davvero", "bellissimo",
	},
	stops:     []string{".", "!", "?"},
	tags:      []string{"SerieA", "Roma", "Milano"},
	first:     []string{"Giulia", "Marco", "Chiara", "Luca", "Francesca"},
	last:      []string{"Rossi", "Russo", "Ferrari", "Esposito", "Bianchi"},
	handles:   []string{"giulia", "marco", "chiara", "luca", "fra"},
	locations: []string{"Roma, Lazio", "Milano", "Italia", ""},
	cities:    []int{20},
}

// langUND is for tweets with no linguistic content the API could name:
// emoji, mentions and links. qme (media only) and zxx share it.
var langUND = &language{
	tag: "und", spaced: true,
	stops: []string{""},
	tags:  []string{},
}

// langsByTag lists every language the generator writes.
var langsByTag = map[string]*language{
	"en": langEN, "ja": langJA, "es": langES, "ar": langAR, "pt": langPT, "in": langIN, "ko": langKO,
	"th": langTH, "fr": langFR, "tr": langTR, "tl": langTL, "ru": langRU, "de": langDE, "hi": langHI,
	"it": langIT, "und": langUND, "qme": langUND, "zxx": langUND,
}

// weighted is a language tag and its share of a stream.
type weighted struct {
	tag    string
	weight int // per mille
}

// streamLangs are the bench's language shares, roughly those of the 1%
// sample stream. They sum to 1000.
var streamLangs = []weighted{
	{"en", 320}, {"ja", 160}, {"es", 90}, {"und", 90}, {"pt", 70}, {"ar", 60}, {"in", 30}, {"ko", 30},
	{"th", 30}, {"fr", 30}, {"tr", 20}, {"tl", 20}, {"ru", 10}, {"de", 10}, {"hi", 10}, {"it", 10},
	{"qme", 5}, {"zxx", 5},
}

// sampleLangs are the committed sample's language shares (per mille).
var sampleLangs = []weighted{{"en", 400}, {"ja", 220}, {"es", 160}, {"ar", 140}, {"und", 80}}

// pick returns a tag from ws by a uniform draw u in [0, 1000).
func pick(ws []weighted, u int) string {
	for _, w := range ws {
		if u < w.weight {
			return w.tag
		}
		u -= w.weight
	}
	return ws[len(ws)-1].tag
}

// sources are the "source" values of tweets: the client that posted them.
var sources = []string{
	`<a href="http://twitter.com/download/iphone" rel="nofollow">Twitter for iPhone</a>`,
	`<a href="http://twitter.com/download/android" rel="nofollow">Twitter for Android</a>`,
	`<a href="https://mobile.twitter.com" rel="nofollow">Twitter Web App</a>`,
	`<a href="https://about.twitter.com/products/tweetdeck" rel="nofollow">TweetDeck</a>`,
	`<a href="https://ifttt.com" rel="nofollow">IFTTT</a>`,
	`<a href="http://instagram.com" rel="nofollow">Instagram</a>`,
}

// linkSites are the targets of generated links.
var linkSites = []string{"www.nytimes.com", "www.bbc.co.uk", "www.nhk.or.jp", "elpais.com", "www.aljazeera.net", "github.com", "flink.apache.org", "accumulo.apache.org", "youtu.be", "www.instagram.com"}
