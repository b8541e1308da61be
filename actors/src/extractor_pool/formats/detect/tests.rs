//! The format detection's tests: text formats, then compound files.

use super::*;

/// The format alone.
fn detect(bytes: &[u8], text: Option<&str>) -> Result<Format, ExtractError> {
    detect_parsed(bytes, text).map(|(format, _)| format)
}

fn format_of(text: &str) -> Format {
    detect(text.as_bytes(), Some(text)).expect("a format")
}

/// A table needs two records: one line (with or without its line break) is never one, whatever
/// its delimiters; two lines of the same columns are, with `\n`, `\r\n` or a bare `\r`.
#[test]
fn one_line_is_never_a_table() {
    for one in [
        "a,b,c",
        "a;b;c\n",
        "  a|b|c\r\n\n",
        "Sipariş 1: tutar 1000,50 TL; teslimat 3 gün.\n",
    ] {
        assert_eq!(csv_delimiter(one), None, "{one:?}");
    }
    for two in ["a,b,c\n1,2,3\n", "a;b;c\r\n1;2;3", "a|b|c\r1|2|3\r"] {
        assert!(csv_delimiter(two).is_some(), "{two:?}");
    }
}

/// SQL statements and JSON are text: their commas separate values, not columns.
#[test]
fn sql_statements_and_json_are_text() {
    for sql in [
        "CREATE TABLE musteri (tc TEXT, ad TEXT, soyad TEXT);\nINSERT INTO musteri VALUES('1','Ayşe','Kaya');\nINSERT INTO musteri VALUES('2','Ali','Veli');\n",
        "-- dump\n\ninsert into t (a, b, c) values (1, 2, 3);\ninsert into t (a, b, c) values (4, 5, 6);\n",
        "/*!40101 SET NAMES utf8mb4 */;\nINSERT INTO `t` VALUES (1,'a','b'),(2,'c','d');\nINSERT INTO `t` VALUES (3,'e','f');\n",
    ] {
        assert_eq!(format_of(sql), Format::Txt, "{sql}");
    }
    // JSON Lines and pretty-printed JSON are text too.
    for json in [
        "{\"id\": 1, \"name\": \"Ayşe\", \"city\": \"Ankara\"}\n{\"id\": 2, \"name\": \"Ali\", \"city\": \"İzmir\"}\n",
        "{\n  \"values\": [\n    [\"a\", \"b\", \"c\"],\n    [\"d\", \"e\", \"f\"],\n    [\"g\", \"h\", \"i\"]\n  ]\n}\n",
    ] {
        assert_eq!(format_of(json), Format::Txt, "{json}");
    }
    // A CSV whose first column happens to hold such a word is still a CSV.
    assert_eq!(format_of("update,count,total\nA,1,2\nB,3,4\n"), Format::Csv);
    for csv in [
        "Start Date,End Date,Amount\n2024-01-01,2024-02-01,10\n2024-03-01,2024-04-01,20\n",
        "Create Date,Customer,Amount\n2024-01-01,Ayşe,10\n2024-03-01,Ali,20\n",
        "Set Name;Count;Owner\nA;1;x\nB;2;y\n",
    ] {
        assert_eq!(format_of(csv), Format::Csv, "{csv}");
    }
}

/// A letter whose lines end with a comma, or go on after one, is text: read as a two-column CSV,
/// its commas came out as tabs (`docsieve mask letter.txt` changed the letter's punctuation).
#[test]
fn a_letter_with_commas_is_text() {
    let letter = "Sehr geehrter Herr Müller,\nSehr geehrte Frau Schneider,\nGeachte heer Jansen,\n\
                  Hi Sarah, thanks for the update.\nThanks, John\nBest regards,\nMehmet Yılmaz\n\
                  Saygılarımla,\nAyşe Kaya\n";
    assert_eq!(format_of(letter), Format::Txt);
    // Sentences that open with a phrase and a comma, a name after it.
    let minutes =
        "Lors de l'audience, Léon Neveu a décrit le retard.\nLéon a confirmé les chiffres.\n\
                   Ensuite, Neveu a demandé une copie de la facture.";
    assert_eq!(format_of(minutes), Format::Txt);
}

/// Tables stay tables, two columns included, with or without a space after the delimiter.
#[test]
fn tables_of_two_columns_and_more_stay_csv() {
    for table in [
        "name,phone\nAyşe,0532 123 45 67\nMehmet,0533 765 43 21\n",
        "Ad, Telefon\nAyşe, 0532 123 45 67\nMehmet, 0533 765 43 21\n",
        "id;name;amount\n1;Kalem;12,50\n2;Defter;30,00\n",
        "a\tb\n1\t2\n3\t4\n",
        "id,note\n1,Customer called about the invoice today.\n2,Sent the refund to the bank.\n",
    ] {
        assert_eq!(format_of(table), Format::Csv, "{table}");
    }
}

mod compound_files {
    use super::*;

    fn compound(streams: &[(&str, &[u8])]) -> Vec<u8> {
        compound_file(streams).expect("compound file")
    }

    /// A Word FIB's first bytes with `flags` at offset 10.
    fn fib(flags: u16) -> Vec<u8> {
        let mut fib = vec![0xEC, 0xA5, 0xC1, 0x00];
        fib.resize(10, 0);
        fib.extend(flags.to_le_bytes());
        fib.resize(512, 0);
        fib
    }

    #[test]
    fn compound_files_are_told_apart_by_their_streams() {
        let encrypted_ooxml = compound(&[
            ("EncryptionInfo", &[4, 0, 4, 0, 0x40, 0, 0, 0]),
            ("EncryptedPackage", &[0; 600]),
        ]);
        assert_eq!(
            detect(&encrypted_ooxml, None),
            Err(ExtractError::EncryptedDocument)
        );
        let word = compound(&[("WordDocument", &fib(0)), ("1Table", &[0; 64])]);
        assert_eq!(detect(&word, None), Ok(Format::Doc));
        let locked_word = compound(&[("WordDocument", &fib(0x0100)), ("1Table", &[0; 64])]);
        assert_eq!(
            detect(&locked_word, None),
            Err(ExtractError::EncryptedDocument)
        );
        let slides = compound(&[
            ("PowerPoint Document", &[0; 64]),
            ("Current User", &[0; 16]),
        ]);
        assert_eq!(detect(&slides, None), Ok(Format::Ppt));
        let obfuscated_word = compound(&[("WordDocument", &fib(0x8000)), ("1Table", &[0; 64])]);
        assert_eq!(
            detect(&obfuscated_word, None),
            Err(ExtractError::EncryptedDocument)
        );
        assert_eq!(
            detect(&compound(&[("__substg1.0_0037001F", &[0x41, 0])]), None),
            Ok(Format::Msg)
        );
        // Stream names in another letter case are the same streams.
        let lower = compound(&[("encryptioninfo", &[4, 0]), ("encryptedpackage", &[0; 600])]);
        assert_eq!(detect(&lower, None), Err(ExtractError::EncryptedDocument));
        let locked_slides = compound(&[
            ("PowerPoint Document", &[0; 64]),
            ("EncryptedSummary", &[0; 16]),
        ]);
        assert_eq!(
            detect(&locked_slides, None),
            Err(ExtractError::EncryptedDocument)
        );
        // BIFF8: a BOF, then FILEPASS (an RC4-encrypted workbook).
        let mut locked_book = [0x09, 0x08, 16, 0].to_vec();
        locked_book.extend([0; 16]);
        locked_book.extend([0x2F, 0x00, 4, 0, 1, 0, 1, 0]);
        assert_eq!(
            detect(&compound(&[("Workbook", &locked_book)]), None),
            Err(ExtractError::EncryptedDocument)
        );
        // A FILEPASS only after the first sheet's BOF is some sheet's bytes, not the workbook's.
        let mut sheets = [0x09, 0x08, 16, 0].to_vec();
        sheets.extend([0; 16]);
        sheets.extend([0x09, 0x08, 16, 0]);
        sheets.extend([0; 16]);
        sheets.extend([0x2F, 0x00, 4, 0, 1, 0, 1, 0]);
        assert_eq!(
            detect(&compound(&[("Workbook", &sheets)]), None),
            Ok(Format::Xls)
        );
        assert_eq!(
            detect(&compound(&[("Workbook", &[0; 64])]), None),
            Ok(Format::Xls)
        );
        assert!(matches!(
            detect(&compound(&[("Something", &[1; 8])]), None),
            Err(ExtractError::UnsupportedFormat(_))
        ));
        // A header that does not parse (an impossible sector size): the stream names still show.
        let mut damaged = encrypted_ooxml.clone();
        damaged[30] = 0x7F;
        assert_eq!(
            detect(&damaged, None),
            Err(ExtractError::EncryptedDocument),
            "named in a damaged file"
        );
        damaged = word.clone();
        damaged.truncate(600);
        assert!(matches!(
            detect(&damaged, None),
            Err(ExtractError::Malformed(_))
        ));
    }
}
