//! Names found by the words around them: given names before unknown words, titles, closings, honorifics.

use super::*;

/// A known given name before one capitalised word that no gazetteer knows: that word is taken for a
/// surname when it ends the run of capitalised words and is no firm's, organisation's or place's
/// word, and the given name is no common word.
#[test]
fn a_given_name_before_an_unknown_word_is_a_name() {
    masks_as(&[
        (
            "Toplantıya Mehmet Karadağlı ve Zeynep Ertuğrul katıldı.",
            "Toplantıya [MASKED_PERSON_NAME] ve [MASKED_PERSON_NAME] katıldı.",
        ),
        (
            "John Whitfield and Sarah Connolly-Hughes signed.",
            "[MASKED_PERSON_NAME] and [MASKED_PERSON_NAME] signed.",
        ),
        ("Onay: Mehmet KARADAĞLI.", "Onay: [MASKED_PERSON_NAME]."),
        (
            "Hakan Çalhanoğlu gol attı.",
            "[MASKED_PERSON_NAME] gol attı.",
        ),
        (
            "Mehmet Karadağlı Yılmaz aradı.",
            "[MASKED_PERSON_NAME] aradı.",
        ),
        (
            "Mehmet Karadağlı Bey'e iletildi.",
            "[MASKED_PERSON_NAME] Bey'e iletildi.",
        ),
        // A paper's author line: a footnote mark after the surname.
        (
            "Jacob Carlson3, and Melissa Dell2",
            "[MASKED_PERSON_NAME]3, and [MASKED_PERSON_NAME]2",
        ),
        // Found once, masked everywhere.
        (
            "Mehmet Karadağlı aradı. Karadağlı yarın gelecek, Mehmet Karadağlı onayladı.",
            // Once found, the surname alone is the person too.
            "[MASKED_PERSON_NAME] aradı. [MASKED_PERSON_NAME] yarın gelecek, [MASKED_PERSON_NAME] onayladı.",
        ),
    ]);
    keeps(&[
        // Firms named after their owner, institutions and places named after people.
        "Burak Yapı inşaat projesi onaylandı.",
        "Kerem Gıda siparişi teslim edildi.",
        "Emre Bilişim Hizmetleri ile sözleşme yapıldı.",
        "Ahmet Haşim Lisesi öğrencileri ödül aldı.",
        "Fatih Sultan Mehmet Köprüsü trafiğe kapandı.",
        "Elif Yayınları yeni kitabını duyurdu.",
        "Murat Nehri kıyısında yeni tesis açıldı.",
        "Zeynep Kamil Hastanesi'nde doğdu.",
        "Mehmet Akif Ersoy Üniversitesi rektörü konuştu.",
        "Ada Yazılım A.Ş. ile protokol imzalandı.",
        "David Motors opened a new branch.",
        // A run of capitalised words goes on: a heading or a name of something.
        "The Thomas Cook Holidays brochure arrived.",
        "Sarah Lawrence College admissions.",
        // Given names that are common words.
        "Ege Bölgesi, Deniz Kuvvetleri, Kuzey Kıbrıs, Umut Verici.",
        "Mark Paid invoices.",
        // Letters and digits: an id, or a word joined by a dot.
        "Mehmet Ab12 kodu.",
        "Mehmet AB1 kodu.",
        "St. Paul Cathedral and Ali Paşa Sarayı.",
    ]);
}

/// A Turkish title after a given name ("Ahmet Bey", "Elif Hanım") makes the given name a person's,
/// unless the title begins a place's name.
#[test]
fn a_given_name_before_a_title_is_a_name() {
    masks_as(&[
        (
            "Dosyayı Ahmet Bey'e ilettim, Elif Hanım da bilgilendirildi.",
            "Dosyayı [MASKED_PERSON_NAME] Bey'e ilettim, [MASKED_PERSON_NAME] Hanım da bilgilendirildi.",
        ),
        ("Deniz Hanım aradı.", "[MASKED_PERSON_NAME] Hanım aradı."),
    ]);
    keeps(&["Selim Bey Apartmanı kapıcısı değişti.", "Bey Ahmet"]);
}

/// The name that signs a letter: alone on the line after its closing (past one blank line), or
/// after the closing's comma on the same line. One word signs only when it is a known name.
#[test]
fn a_name_signing_a_letter_is_a_name() {
    masks_as(&[
        ("Thanks,\nJohn", "Thanks,\n[MASKED_PERSON_NAME]"),
        (
            "Best regards,\nVladimir Karpukhin\nHead of Sales",
            "Best regards,\n[MASKED_PERSON_NAME]\nHead of Sales",
        ),
        (
            "Saygılarımla,\r\n\r\nİhsan Tarhan\r\n",
            "Saygılarımla,\r\n\r\n[MASKED_PERSON_NAME]\r\n",
        ),
        (
            "Mit freundlichen Grüßen\nJürgen Weißmüller",
            "Mit freundlichen Grüßen\n[MASKED_PERSON_NAME]",
        ),
        ("Thanks, Emma.", "Thanks, [MASKED_PERSON_NAME]."),
        (
            "Best regards,\nDanqi Chen",
            "Best regards,\n[MASKED_PERSON_NAME]",
        ),
        ("Teşekkürler,\nYılmaz", "Teşekkürler,\n[MASKED_PERSON_NAME]"),
    ]);
    keeps(&[
        "Regards,\nThe Support Team",
        "Saygılarımızla,\nMüşteri Hizmetleri",
        "Best,\nMarketing",
        "Kind regards,\nAcme Corp",
        "Teşekkürler,\nİnsan Kaynakları Departmanı",
        // Not the name's own line, or no closing before it.
        "Thanks,\nJohn will call you tomorrow.",
        "Agenda,\nLezize Korutürk",
        "Best regards,\nsome text\nLezize Korutürk",
    ]);
}

/// Honorifics written in lower case inside a sentence: Dutch, French, Italian, Spanish.
#[test]
fn a_name_after_a_lower_case_honorific_is_a_name() {
    masks_as(&[
        ("Geachte heer Jansen,", "Geachte heer [MASKED_PERSON_NAME],"),
        (
            "Wij spraken met mevrouw De Vries gisteren.",
            "Wij spraken met mevrouw [MASKED_PERSON_NAME] gisteren.",
        ),
        (
            "Nous avons reçu monsieur Jean Dupont hier.",
            "Nous avons reçu monsieur [MASKED_PERSON_NAME] hier.",
        ),
        ("An Herrn Weißmüller", "An Herrn [MASKED_PERSON_NAME]"),
        (
            "Abbiamo incontrato la signora Rossi ieri.",
            "Abbiamo incontrato la signora [MASKED_PERSON_NAME] ieri.",
        ),
    ]);
    // A word that merely ends like one, and an honorific before no capitalised word.
    keeps(&["Der Scheer Verlag", "de heer van het huis"]);
}

/// A distinctive surname (no common word anywhere) after one capitalised word no list knows: the two
/// make a name when they alone make the run of capitalised words.
#[test]
fn an_unknown_word_before_a_distinctive_surname_is_a_name() {
    masks_as(&[
        (
            "Ledell Wu, Danqi Chen\nand Ruochen Zhang, Weronika Kowalski.",
            "Ledell Wu, [MASKED_PERSON_NAME]\nand [MASKED_PERSON_NAME], [MASKED_PERSON_NAME].",
        ),
        ("Anruf von Jörg Schmidt.", "Anruf von [MASKED_PERSON_NAME]."),
    ]);
    keeps(&[
        // A longer run, a firm, a surname that is also a word, an id.
        "The Annual Chen Report",
        "Kaya Holding Schmidt",
        "Toplam Kaya miktarı.",
        "Ab Chen1a",
    ]);
}

/// Words that say what a person is mark the capitalised words beside them as a name: "adlı",
/// "isimli", "adındaki" and a noun for a person after two words, a noun for a person with "our" or
/// "my" before two, and a noun for a person with "named" or "called" before one or more.
#[test]
fn words_that_say_what_a_person_is_mark_a_name() {
    masks_as(&[
        (
            "Lezize Korutürk adlı müşteri dün şubeye geldi.",
            "[MASKED_PERSON_NAME] adlı müşteri dün şubeye geldi.",
        ),
        (
            "Sevim Tekinalp adında bir hasta taburcu oldu.",
            "[MASKED_PERSON_NAME] adında bir hasta taburcu oldu.",
        ),
        (
            "Fatura Nurhan Ekşioğlu isimli çalışanımıza teslim edildi.",
            "Fatura [MASKED_PERSON_NAME] isimli çalışanımıza teslim edildi.",
        ),
        (
            "Müvekkilimiz Lezize Korutürk adına dava açılmıştır.",
            "Müvekkilimiz [MASKED_PERSON_NAME] adına dava açılmıştır.",
        ),
        (
            "Yarın çalışanımız Can Dündar izinli.",
            "Yarın çalışanımız [MASKED_PERSON_NAME] izinli.",
        ),
        (
            "A customer named Weining Li called yesterday.",
            "A customer named [MASKED_PERSON_NAME] called yesterday.",
        ),
        (
            "The patient called Oluwaseun was discharged.",
            "The patient called [MASKED_PERSON_NAME] was discharged.",
        ),
    ]);
    keeps(&[
        // Things with names, firms, places, salutations, one word before a person noun.
        "Kuzey Yıldızı adlı gemi limana yanaştı.",
        "Sessiz Gemi adlı kitap yeniden basıldı.",
        "ABC Lojistik adlı müşteri ile sözleşme imzalandı.",
        "Ankara Şubesi adlı personel listesi.",
        "Müşterimiz Koç Holding ile görüşüldü.",
        "Personelimiz Ankara Şubesinde çalışıyor.",
        "Değerli Müşterimiz, teşekkür ederiz.",
        "Zeynep adlı müşteri",
        "A company named Bright Widgets was founded.",
        "A file called Quarterly Report was attached.",
        "Gemimiz Kuzey",
    ]);
}

/// The display name before an address in angle brackets is a name (two words or more, quoted or
/// not, "Surname, Given" too); a team's or a company's is not, nor is one word.
#[test]
fn display_names_before_an_address_are_names() {
    masks_as(&[
        (
            "From: \"Lezize Korutürk\" <lezize@ornek.com.tr>",
            "From: \"[MASKED_PERSON_NAME]\" <[MASKED_EMAIL]>",
        ),
        (
            "To: Ravindra Patel <rp@example.com>, \"Korutürk, Lezize\" <lk@example.com>",
            "To: [MASKED_PERSON_NAME] <[MASKED_EMAIL]>, \"[MASKED_PERSON_NAME]\" <[MASKED_EMAIL]>",
        ),
    ]);
    masks_as(&[
        (
            "From: \"Acme Support\" <support@acme.com>",
            "From: \"Acme Support\" <[MASKED_EMAIL]>",
        ),
        (
            "Reply-To: \"Muhasebe Departmanı\" <muhasebe@firma.com.tr>",
            "Reply-To: \"Muhasebe Departmanı\" <[MASKED_EMAIL]>",
        ),
        (
            "From: Info <info@firma.com.tr>",
            "From: Info <[MASKED_EMAIL]>",
        ),
        // Quotes around nothing, or nothing but spaces.
        ("\" \" <ayse@example.com>", "\" \" <[MASKED_EMAIL]>"),
        ("\"   \" <x@ornek.com.tr>", "\"   \" <[MASKED_EMAIL]>"),
        ("\"\" <x@ornek.com.tr>", "\"\" <[MASKED_EMAIL]>"),
    ]);
}

/// An Irish surname ("O'Sullivan") is a name with the capitalised word before it; "O'nun" is none.
#[test]
fn irish_surnames_are_names() {
    masks_as(&[
        (
            "Please contact our agent, Siobhan O'Sullivan, at the desk.",
            "Please contact our agent, [MASKED_PERSON_NAME], at the desk.",
        ),
        ("Report by O’Brien.", "Report by [MASKED_PERSON_NAME]."),
    ]);
    keeps(&[
        "O'nun dosyası hazır.",
        "O'Reilly Media",
        "Tim O'Reilly Foundation",
    ]);
}

/// Answers a form's name field may hold are no names; the parties of a case behind a colon are.
#[test]
fn answers_are_no_names_and_parties_are() {
    keeps(&["Veli: Yok", "Sorumlu: Evet", "Contact: None"]);
    masks_as(&[(
        "Hasta: Nermin Özdoğan, Davacı: Remzi Kalaycı",
        "Hasta: [MASKED_PERSON_NAME], Davacı: [MASKED_PERSON_NAME]",
    )]);
}

/// A Turkish compound's head keeps its place's or institution's name with a case ending too.
#[test]
fn a_compound_head_with_a_case_ending_is_no_surname() {
    keeps(&[
        "Toplantı Ahmet Lisesinde yapıldı.",
        "Dilekçe Mehmet Müdürlüğüne gönderildi.",
    ]);
}

/// A greeted word no list knows, followed by a comma, is a name; whom a greeting addresses when it
/// is no one is not. Two words after a participle and "by" are a name.
#[test]
fn greeted_words_and_agents_after_by_are_names() {
    masks_as(&[
        (
            "Hi Priya, please find attached the invoice.",
            "Hi [MASKED_PERSON_NAME], please find attached the invoice.",
        ),
        (
            "The contract was signed by Hiroshi Tanaka on behalf of the company.",
            "The contract was signed by [MASKED_PERSON_NAME] on behalf of the company.",
        ),
        (
            "Account holder: Chidi Nwosu",
            "Account holder: [MASKED_PERSON_NAME]",
        ),
    ]);
    keeps(&[
        "Hi All, the release is out.",
        "Hello World, again.",
        "Merhaba Arkadaşlar, toplantı yarın.",
        "Dear Customer, your order shipped.",
        "Hi Tarquin and the rest.",
        "The report was signed by Microsoft.",
        "Delivered by Acme Logistics Ltd.",
        "It was approved by Board Resolution 12.",
    ]);
}

/// A Chinese or Vietnamese surname written first, then one or two given names no list knows.
#[test]
fn surnames_written_first_are_names() {
    masks_as(&[
        (
            "Attendees: Ana Souza, Björn Lind, Chen Wei",
            "Attendees: [MASKED_PERSON_NAME], [MASKED_PERSON_NAME], [MASKED_PERSON_NAME]",
        ),
        (
            "Please call Nguyen Van An today.",
            "Please call [MASKED_PERSON_NAME] today.",
        ),
        (
            "Requester: Nguyen Van An",
            "Requester: [MASKED_PERSON_NAME]",
        ),
    ]);
    keeps(&["The Annual Chen Wei Report", "Zhang 12"]);
}

/// Names that begin with a Latin capital beyond Turkish's (Ø, Ł, É, Š) are capitalised words too.
#[test]
fn names_with_other_latin_capitals() {
    masks_as(&[
        ("Reviewer: Lars Øberg", "Reviewer: [MASKED_PERSON_NAME]"),
        (
            "Rozmawiał z nim Łukasz Nowak.",
            "Rozmawiał z nim [MASKED_PERSON_NAME].",
        ),
        ("Sayın Élodie Dupont,", "Sayın [MASKED_PERSON_NAME],"),
    ]);
}

/// A given name after a saint's word names a place.
#[test]
fn places_named_after_saints_are_no_names() {
    keeps(&[
        "Huastec (San Luís Potosí)",
        "Flights to São Paulo Guarulhos and Santa Maria Novella.",
        "Saint Louis Blues",
    ]);
}

/// A run of `X` where a name stood is what the legacy Office writers leave (a value overwritten at
/// its length): under a name's column, its label, an honorific or a noun, it is no one's name; a name
/// beside it still is.
#[test]
fn a_fill_of_x_where_a_name_stood_is_no_name() {
    masks_as(&[
        (
            "Ad Soyad\tT.C. Kimlik No\tŞehir\nXXXXXXXXXXXXXXXX\tXXXXXXXXXXX\tİzmir\nAyşe Yılmaz\t10000000146\tBursa",
            "Ad Soyad\tT.C. Kimlik No\tŞehir\nXXXXXXXXXXXXXXXX\tXXXXXXXXXXX\tİzmir\n[MASKED_PERSON_NAME]\t[MASKED_NATIONAL_ID_TR]\tBursa",
        ),
        ("Adı Soyadı: XXXXXXXXXXX", "Adı Soyadı: XXXXXXXXXXX"),
        ("Sayın XXXXXXXXXXX, çalışan XXXXXXX", "Sayın XXXXXXXXXXX, çalışan XXXXXXX"),
    ]);
}
