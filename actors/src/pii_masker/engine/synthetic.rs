//! Deterministic synthetic business text for the benchmark and the precision tests: Turkish and
//! English sentences full of look-alike numbers (amounts, dates, invoice and order numbers, product
//! codes, ids that fail every checksum), optionally with real-looking personal values mixed in.

/// A small xorshift generator: the same seed gives the same text on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    pub fn digits(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b'0' + self.below(10) as u8))
            .collect()
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

/// A valid TCKN.
pub fn tckn(rng: &mut Rng) -> String {
    let mut d: Vec<u32> = vec![1 + rng.below(9) as u32];
    d.extend((0..8).map(|_| rng.below(10) as u32));
    let odd = d[0] + d[2] + d[4] + d[6] + d[8];
    let even = d[1] + d[3] + d[5] + d[7];
    d.push(((7 * odd) as i32 - even as i32).rem_euclid(10) as u32);
    d.push(d.iter().sum::<u32>() % 10);
    d.iter().map(|x| char::from(b'0' + *x as u8)).collect()
}

/// A valid Turkish IBAN, printed in groups of four.
pub fn iban_tr(rng: &mut Rng) -> String {
    let bban = format!("{}0{}", rng.digits(5), rng.digits(16));
    let rearranged = format!("{bban}2927{}", "00"); // "TR" -> 29 27, check digits 00
    let remainder = rearranged
        .bytes()
        .fold(0u64, |acc, b| (acc * 10 + u64::from(b - b'0')) % 97);
    let check = 98 - remainder;
    let compact = format!("TR{check:02}{bban}");
    compact
        .as_bytes()
        .chunks(4)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// An 11-digit number that fails every 11-digit checksum the engine knows.
fn failing_eleven(rng: &mut Rng) -> String {
    use crate::pii_masker::detectors::{eu, tr};
    loop {
        let candidate = format!("{}{}", 1 + rng.below(9), rng.digits(10));
        let b = candidate.as_bytes();
        if !tr::tckn(b)
            && !eu::tax_id_de(b)
            && !eu::national_id_pl(b)
            && !eu::national_id_be(b)
            && !tr::phone_with_prefix(b)
        {
            return candidate;
        }
    }
}

const FIRST: &[&str] = &[
    "Ayşe", "Mehmet", "Zeynep", "Ahmet", "Elif", "Mustafa", "Fatma", "Emre",
];
const LAST: &[&str] = &[
    "Yılmaz", "Kaya", "Demir", "Şahin", "Çelik", "Öztürk", "Aydın", "Arslan",
];

/// The kinds of sentence without personal data (see [`business_sentence_of`]).
pub const BUSINESS_KINDS: u64 = 10;

/// One sentence without personal data.
pub fn business_sentence(rng: &mut Rng) -> String {
    let kind = rng.below(BUSINESS_KINDS);
    business_sentence_of(kind, rng)
}

/// One sentence without personal data, of one kind (`0..BUSINESS_KINDS`): an invoice line, an order,
/// an English shipping note, a registry number, a total, a stock code, a budget line, a quote, a batch,
/// a procedure.
pub fn business_sentence_of(kind: u64, rng: &mut Rng) -> String {
    match kind {
        0 => format!("Fatura No: FTR{}{} Tarih: {:02}.{:02}.20{} Tutar: {}.{},{} TL.\n", 2020 + rng.below(6), rng.digits(6), 1 + rng.below(28), 1 + rng.below(12), 20 + rng.below(6), 1 + rng.below(99), rng.digits(3), rng.digits(2)),
        1 => format!("Sipariş SIP-{} kapsamında {} adet ürün (EAN 869{}) {} gün içinde teslim edilecektir.\n", rng.digits(10), 1 + rng.below(500), rng.digits(10), 1 + rng.below(30)),
        2 => format!("Order {} shipped on 2024-{:02}-{:02}, total EUR {}.{:02}, reference REF/{}/{}.\n", rng.digits(8), 1 + rng.below(12), 1 + rng.below(28), rng.below(100_000), rng.below(100), rng.digits(4), rng.digits(5)),
        3 => format!("Kayıt numarası {} ile arşivlenen dosya {} sayfadır; güncelleme v{}.{}.{} ile yapıldı.\n", failing_eleven(rng), 1 + rng.below(300), rng.below(10), rng.below(20), rng.below(50)),
        4 => format!("Toplam {}.{}.{},{} USD; vade {} gün; irsaliye 2024/{:02}/{} ; proje P-2024-{}.\n", 1 + rng.below(9), rng.digits(3), rng.digits(3), rng.digits(2), 30 + rng.below(60), 1 + rng.below(12), rng.digits(6), rng.digits(3)),
        5 => format!("Stok kodu {}-{}-{} için depo {} rafında {} kutu bulunmaktadır, saat {:02}:{:02} itibarıyla.\n", rng.pick(&["AB", "KX", "TR", "ZZ"]), rng.digits(4), rng.digits(3), rng.pick(&["A", "B", "C"]), rng.below(999), rng.below(24), rng.below(60)),
        6 => format!("The meeting on {}/{}/2025 approved budget line {} with a {}% increase over Q{} figures.\n", 1 + rng.below(12), 1 + rng.below(28), rng.digits(7), rng.below(40), 1 + rng.below(4)),
        7 => format!("Müşteri talebi #{} için hazırlanan teklif {} kalem ve {} TL KDV içerir; geçerlilik {} gündür.\n", rng.digits(6), 1 + rng.below(40), rng.digits(5), 7 + rng.below(60)),
        8 => format!("Batch {}{} passed QA with {} defects per million; lot {}.\n", rng.pick(&["L", "B", "Q"]), rng.digits(9), rng.below(50), rng.digits(12)),
        _ => format!("İade süreci {} iş günü sürer ve {} numaralı prosedüre göre yürütülür, ISO 9001:2015 kapsamında.\n", 3 + rng.below(10), rng.digits(4)),
    }
}

/// The kinds of sentence with one personal value (see [`personal_sentence_of`]).
pub const PERSONAL_KINDS: u64 = 8;

/// One sentence carrying one personal value.
pub fn personal_sentence(rng: &mut Rng) -> String {
    let first = rng.pick(FIRST);
    let last = rng.pick(LAST);
    let kind = rng.below(PERSONAL_KINDS);
    personal_sentence_with(kind, first, last, rng)
}

/// One sentence carrying one personal value of one kind (`0..PERSONAL_KINDS`): a TCKN, an IBAN, a
/// mobile number, an e-mail address, a name, a card number, a VKN, a British phone number.
pub fn personal_sentence_of(kind: u64, rng: &mut Rng) -> String {
    let first = rng.pick(FIRST);
    let last = rng.pick(LAST);
    personal_sentence_with(kind, first, last, rng)
}

fn personal_sentence_with(kind: u64, first: &str, last: &str, rng: &mut Rng) -> String {
    match kind {
        0 => format!("T.C. Kimlik No: {} olan başvuru alındı.\n", tckn(rng)),
        1 => format!("Ödeme için IBAN: {} kullanılacaktır.\n", iban_tr(rng)),
        2 => format!(
            "İletişim: 05{}{} {} {} {}\n",
            rng.pick(&["3", "4", "5"]),
            rng.below(10),
            rng.digits(3),
            rng.digits(2),
            rng.digits(2)
        ),
        3 => format!(
            "E-posta adresi {}.{}{}@example.com.tr olarak güncellendi.\n",
            first
                .to_lowercase()
                .replace('ş', "s")
                .replace('ı', "i")
                .replace('ç', "c")
                .replace('ö', "o")
                .replace('ü', "u"),
            rng.digits(2),
            "x",
        ),
        4 => format!("Sayın {first} {last}, talebiniz işleme alınmıştır.\n"),
        5 => "Kart numarası 4111 1111 1111 1111 ile yapılan ödeme onaylandı.\n".to_string(),
        6 => "Vergi No: 4540536920 olan firmaya fatura kesildi.\n".to_string(),
        _ => format!(
            "Customer contact +44 20 7946 {} requested a callback.\n",
            rng.digits(4)
        ),
    }
}

/// About `bytes` of text; with `personal`, one personal value per ~200 bytes.
pub fn text(bytes: usize, personal: bool, seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let mut out = String::with_capacity(bytes + 256);
    let mut since_personal = 0usize;
    while out.len() < bytes {
        let sentence = if personal && since_personal >= 140 {
            since_personal = 0;
            personal_sentence(&mut rng)
        } else {
            business_sentence(&mut rng)
        };
        since_personal += sentence.len();
        out.push_str(&sentence);
    }
    out
}
