//! Keys of data files, name objects, SQL and JSON rows, '=' keys, column headers.

use super::*;

#[test]
fn keys_of_data_files_are_labels() {
    masks_as(&[
        (
            r#"{"firstName": "Mehmet", "lastName": "Karadağlı", "dob": "1985-03-12"}"#,
            r#"{"firstName": "[MASKED_PERSON_NAME]", "lastName": "[MASKED_PERSON_NAME]", "dob": "[MASKED_DATE_OF_BIRTH]"}"#,
        ),
        (
            r#"{"first_name":"Lezize","last_name":"Korutürk","date_of_birth":"12.04.1979"}"#,
            r#"{"first_name":"[MASKED_PERSON_NAME]","last_name":"[MASKED_PERSON_NAME]","date_of_birth":"[MASKED_DATE_OF_BIRTH]"}"#,
        ),
        (
            "customer.person.first_name: Asliye\ncustomer.person.family_name: Ülker",
            "customer.person.first_name: [MASKED_PERSON_NAME]\ncustomer.person.family_name: [MASKED_PERSON_NAME]",
        ),
        (
            r#"'ad': 'Selin', 'soyad': 'Akbulut', 'dogumTarihi': '04.07.1990'"#,
            r#"'ad': '[MASKED_PERSON_NAME]', 'soyad': '[MASKED_PERSON_NAME]', 'dogumTarihi': '[MASKED_DATE_OF_BIRTH]'"#,
        ),
        (
            r#""address": "1600 Pennsylvania Ave NW, Washington, DC 20500", "city": "Ankara""#,
            r#""address": "[MASKED_ADDRESS]", "city": "Ankara""#,
        ),
        // A key's keywords give its value their types however the key is written.
        (
            "musteri_vkn: 4540536920, customerVkn: 4540536920",
            "musteri_vkn: [MASKED_TAX_ID_TR], customerVkn: [MASKED_TAX_ID_TR]",
        ),
        (
            r#"{"Ad Soyad": "Lezize Qwerty", "First Name": "Lezize"}"#,
            r#"{"Ad Soyad": "[MASKED_PERSON_NAME]", "First Name": "[MASKED_PERSON_NAME]"}"#,
        ),
        (
            r#"{"customer": {"name": "Asdfgh Hjklqw"}}"#,
            r#"{"customer": {"name": "[MASKED_PERSON_NAME]"}}"#,
        ),
        // A value's window ends at its key: the earlier field's keyword is not its context.
        (
            r#"{"date_of_birth": "1985-03-12", "created": "2024-05-01", "dob": "12.04.1979", "order": "3.3.2024"}"#,
            r#"{"date_of_birth": "[MASKED_DATE_OF_BIRTH]", "created": "2024-05-01", "dob": "[MASKED_DATE_OF_BIRTH]", "order": "3.3.2024"}"#,
        ),
        (
            r#"{"team": "Qwerty Zxcvbn", "full_name": "Asdfgh Hjklqw"}"#,
            r#"{"team": "Qwerty Zxcvbn", "full_name": "[MASKED_PERSON_NAME]"}"#,
        ),
    ]);
    // Keys that name no person, and values of other keys.
    keeps(&[
        r#"{"product_name": "Widget Pro", "company_name": "Yaman Gıda Ltd. Şti."}"#,
        r#"{"created_at": "2024-05-01", "order_id": "SIP-2024-88812", "city": "Ankara"}"#,
        "supplier.name: Yaman Gıda Ltd. Şti.\ninvoice.issue_date: 2026-03-14",
        r#"{"date_of_birth": null, "updated_at": "2024-05-01"}"#,
        r#"{"product": {"name": "Widget Pro", "sku": "W-1"}}"#,
        "McDonald: 2024-05-01",
    ]);
}

#[test]
fn a_key_that_says_nothing_leaves_the_window_to_its_record() {
    // FHIR's telecom entries: the system names what the value is.
    masks_as(&[
        (
            r#"{"system": "phone", "value": "5321234567", "use": "mobile"}"#,
            r#"{"system": "phone", "value": "[MASKED_PHONE_TR]", "use": "mobile"}"#,
        ),
        (
            r#"{"type": "dogum_tarihi", "value": "12.03.1985"}"#,
            r#"{"type": "dogum_tarihi", "value": "[MASKED_DATE_OF_BIRTH]"}"#,
        ),
        // A national number of another country, which only a phone label makes one.
        (
            r#"{"system": "phone", "value": "(03) 5555 6473", "use": "work"}"#,
            r#"{"system": "phone", "value": "[MASKED_PHONE_INTL]", "use": "work"}"#,
        ),
    ]);
    // A key that says what its value is still bounds the window, and a record's keywords stay in it.
    keeps(&[
        r#"{"dob": "x", "created": "2024-05-01"}"#,
        r#"{"system": "phone", "value": "x"}, {"system": "url", "value": "(03) 5555 6473"}"#,
    ]);
}

#[test]
fn parts_of_a_name_inside_a_name_object() {
    masks_as(&[
        // A FHIR patient's name: the family name, the given names in an array, the full text.
        (
            r#""name": [{"use": "official", "family": "Chalmers", "given": ["Peter", "James"]}, {"use": "usual", "given": ["Jim"], "text": "Jim Chalmers"}],"#,
            r#""name": [{"use": "official", "family": "[MASKED_PERSON_NAME]", "given": ["[MASKED_PERSON_NAME]", "[MASKED_PERSON_NAME]"]}, {"use": "usual", "given": ["[MASKED_PERSON_NAME]"], "text": "[MASKED_PERSON_NAME]"}],"#,
        ),
        (
            r#"{"customer": {"name": {"first": "mehmet", "last": "yılmaz"}, "tier": "gold"}}"#,
            r#"{"customer": {"name": {"first": "[MASKED_PERSON_NAME]", "last": "[MASKED_PERSON_NAME]"}, "tier": "gold"}}"#,
        ),
        // An array of names behind a name key.
        (
            r#"{"authors": "x", "full_name": ["Asdfgh Hjklqw", "zeynep kaya"]}"#,
            r#"{"authors": "x", "full_name": ["[MASKED_PERSON_NAME]", "[MASKED_PERSON_NAME]"]}"#,
        ),
    ]);
    // Outside a name object, such keys say nothing.
    keeps(&[
        r#"{"product": {"family": "Xeon", "first": "Alpha", "last": "Omega"}}"#,
        r#"{"range": {"first": "Monday", "last": "Friday"}, "text": "Spring Sale"}"#,
    ]);
}

#[test]
fn a_given_name_column_headed_ad_beside_soyad() {
    masks_as(&[(
        "Ad\tSoyad\tŞehir\nmehmet\tyılmaz\tAnkara\nAsdfgh\tHjklqw\tİzmir\n",
        "Ad\tSoyad\tŞehir\n[MASKED_PERSON_NAME]\t[MASKED_PERSON_NAME]\tAnkara\n[MASKED_PERSON_NAME]\t[MASKED_PERSON_NAME]\tİzmir\n",
    )]);
    // Without a surname column, "Ad" is no label (a product's name, an advertisement).
    keeps(&["Ad\tAdet\tFiyat\nkalem\t3\t12,50\nDefter\t5\t40,00\n"]);
}

#[test]
fn a_postgresql_dump_s_columns_head_its_rows() {
    masks_as(&[(
        "COPY public.customers (id, first_name, last_name, tckn, birth_date, phone, \"Şehir\") FROM stdin;\n\
         1\tmehmet\tyılmaz\t10000000146\t1985-03-12\t5321234567\tAnkara\n\
         2\tAsdfgh\tHjklqw\t17291716060\t1990-07-04\t5327654321\tİzmir\n\\.\n",
        "COPY public.customers (id, first_name, last_name, tckn, birth_date, phone, \"Şehir\") FROM stdin;\n\
         1\t[MASKED_PERSON_NAME]\t[MASKED_PERSON_NAME]\t[MASKED_NATIONAL_ID_TR]\t[MASKED_DATE_OF_BIRTH]\t[MASKED_PHONE_TR]\tAnkara\n\
         2\t[MASKED_PERSON_NAME]\t[MASKED_PERSON_NAME]\t[MASKED_NATIONAL_ID_TR]\t[MASKED_DATE_OF_BIRTH]\t[MASKED_PHONE_TR]\tİzmir\n\\.\n",
    ),
    // As the same table under a header line of its own.
    (
        "id\tfirst_name\tlast_name\ttckn\tbirth_date\tphone\tŞehir\n\
         1\tmehmet\tyılmaz\t10000000146\t1985-03-12\t5321234567\tAnkara\n",
        "id\tfirst_name\tlast_name\ttckn\tbirth_date\tphone\tŞehir\n\
         1\t[MASKED_PERSON_NAME]\t[MASKED_PERSON_NAME]\t[MASKED_NATIONAL_ID_TR]\t[MASKED_DATE_OF_BIRTH]\t[MASKED_PHONE_TR]\tAnkara\n",
    )]);
    // Columns that name nothing leave the rows as they are.
    keeps(&["COPY public.orders (id, sku, qty, created_at) FROM stdin;\n1\tAB-1\t3\t2024-05-01\n2\tKX-9\t1\t2024-05-02\n"]);
}

#[test]
fn sql_insert_statements_read_values_under_their_columns() {
    masks_as(&[
        // A column list of its own, several rows, quoted names (pg_dump --column-inserts, MS SQL).
        (
            "INSERT INTO public.customers (id, \"first_name\", last_name, birth_date, phone) VALUES (1, 'asdfgh', 'Hjklqw', '1985-03-12', '5321234567'), (2, 'Qwerty', 'O''Zxcvb', '1990-07-04'::date, NULL);",
            "INSERT INTO public.customers (id, \"first_name\", last_name, birth_date, phone) VALUES (1, '[MASKED_PERSON_NAME]', '[MASKED_PERSON_NAME]', '[MASKED_DATE_OF_BIRTH]', '[MASKED_PHONE_TR]'), (2, '[MASKED_PERSON_NAME]', '[MASKED_PERSON_NAME]', '[MASKED_DATE_OF_BIRTH]'::date, NULL);",
        ),
        (
            "INSERT [dbo].[Musteri] ([Ad Soyad], [Dogum Tarihi]) VALUES (N'Asdfgh Hjklqw', '04.07.1990')",
            "INSERT [dbo].[Musteri] ([Ad Soyad], [Dogum Tarihi]) VALUES (N'[MASKED_PERSON_NAME]', '[MASKED_DATE_OF_BIRTH]')",
        ),
        // Without a column list: the columns of the table's CREATE TABLE (a MySQL or SQLite dump),
        // over escaped quotes, commas and parentheses inside strings.
        (
            "CREATE TABLE `customers` (\n  `id` int NOT NULL,\n  `note` text,\n  `first_name` varchar(50) DEFAULT 'a,b',\n  `dob` date,\n  PRIMARY KEY (`id`),\n  KEY `k` (`first_name`,`dob`)\n);\n\
             INSERT INTO `customers` VALUES (1,'It\\'s (fine), ok','Asdfgh','1985-03-12'),(2,NULL,'qwerty','1990-07-04');\n",
            "CREATE TABLE `customers` (\n  `id` int NOT NULL,\n  `note` text,\n  `first_name` varchar(50) DEFAULT 'a,b',\n  `dob` date,\n  PRIMARY KEY (`id`),\n  KEY `k` (`first_name`,`dob`)\n);\n\
             INSERT INTO `customers` VALUES (1,'It\\'s (fine), ok','[MASKED_PERSON_NAME]','[MASKED_DATE_OF_BIRTH]'),(2,NULL,'[MASKED_PERSON_NAME]','[MASKED_DATE_OF_BIRTH]');\n",
        ),
        (
            "INSERT OR REPLACE INTO musteri (ad_soyad) VALUES ('Asdfgh Hjklqw'); INSERT IGNORE INTO musteri (ad_soyad) VALUES ('Qwerty Zxcvb');",
            "INSERT OR REPLACE INTO musteri (ad_soyad) VALUES ('[MASKED_PERSON_NAME]'); INSERT IGNORE INTO musteri (ad_soyad) VALUES ('[MASKED_PERSON_NAME]');",
        ),
        (
            "create table musteri (tckn text, ad text, soyad text, dogum_tarihi date);\ninsert into musteri values('17291716060','Asdfgh','Hjklqw','04.07.1990');\n",
            "create table musteri (tckn text, ad text, soyad text, dogum_tarihi date);\ninsert into musteri values('[MASKED_NATIONAL_ID_TR]','[MASKED_PERSON_NAME]','[MASKED_PERSON_NAME]','[MASKED_DATE_OF_BIRTH]');\n",
        ),
    ]);
    // Columns that name nothing, a statement that is not an INSERT of values, an unfinished one,
    // and prose: as they are.
    keeps(&[
        "INSERT INTO orders (id, sku, created_at) VALUES (1, 'AB-1', '2024-05-01'), (2, 'Kx', '2024-05-02');",
        "INSERT INTO archive (first_name, dob) SELECT first_name, dob FROM customers WHERE id = 3;",
        "INSERT INTO customers (first_name, dob) VALUES ('Asdfgh', '1985-03-",
        "Please insert into the form (name, date) values you trust: Asdfgh 1985.",
        "INSERT INTO t VALUES ('Asdfgh', '1985-03-12');",
    ]);
}

#[test]
fn json_arrays_of_rows_read_values_under_their_columns() {
    masks_as(&[
        // A table split into its columns and its data (pandas' `orient="split"`).
        (
            r#"{"columns": ["id", "first_name", "last_name", "dogum_tarihi"], "index": [0, 1], "data": [[1, "asdfgh", "Hjklqw", "12.03.1985"], [2, "Qwerty", "Zxcvb", null]]}"#,
            r#"{"columns": ["id", "first_name", "last_name", "dogum_tarihi"], "index": [0, 1], "data": [[1, "[MASKED_PERSON_NAME]", "[MASKED_PERSON_NAME]", "[MASKED_DATE_OF_BIRTH]"], [2, "[MASKED_PERSON_NAME]", "[MASKED_PERSON_NAME]", null]]}"#,
        ),
        // A sheet's values under a first row of names, an escaped quote inside a value.
        (
            "{\"values\": [\n  [\"Ad Soyad\", \"Doğum Tarihi\", \"Not\"],\n  [\"Asdfgh Hjklqw\", \"04.07.1990\", \"a \\\"b\\\", c\"],\n  [\"Qwerty Zxcvb\", \"12.03.1985\", \"\"]\n]}",
            "{\"values\": [\n  [\"Ad Soyad\", \"Doğum Tarihi\", \"Not\"],\n  [\"[MASKED_PERSON_NAME]\", \"[MASKED_DATE_OF_BIRTH]\", \"a \\\"b\\\", c\"],\n  [\"[MASKED_PERSON_NAME]\", \"[MASKED_DATE_OF_BIRTH]\", \"\"]\n]}",
        ),
    ]);
    // Column objects with a name (Trino's and Elasticsearch SQL's `columns`, ClickHouse's `meta`),
    // and a column list after a string that holds brackets and braces.
    masks_as(&[
        (
            r#"{"id": "q1", "note": "x[[{", "columns": [{"name": "first_name", "type": "varchar"}, {"name": "dob", "type": "date"}], "data": [["Asdfgh", "1985-03-12"]]}"#,
            r#"{"id": "q1", "note": "x[[{", "columns": [{"name": "first_name", "type": "varchar"}, {"name": "dob", "type": "date"}], "data": [["[MASKED_PERSON_NAME]", "[MASKED_DATE_OF_BIRTH]"]]}"#,
        ),
        (
            r#"{"meta": [{"name": "id", "type": "UInt32"}, {"name": "ad_soyad", "type": "String"}], "data": [[1, "Asdfgh Hjklqw"], [2, "Qwerty Zxcvb"]], "rows": 2}"#,
            r#"{"meta": [{"name": "id", "type": "UInt32"}, {"name": "ad_soyad", "type": "String"}], "data": [[1, "[MASKED_PERSON_NAME]"], [2, "[MASKED_PERSON_NAME]"]], "rows": 2}"#,
        ),
    ]);
    // Columns of another object, a first row that names nothing, numbers, and coordinates: as they
    // are.
    keeps(&[
        r#"{"a": [[1, 2], [3, 4]], "b": {"c": [[5]]}, "d": [["sku"], ["Asdfgh"]]}"#,
        r#"[{"columns": ["first_name", "last_name"]}, {"data": [["Asdfgh", "Hjklqw"]]}]"#,
        r#"[["sku", "created"], ["Asdfgh", "1985-03-12"]]"#,
        r#"{"coordinates": [[[30.1, 40.2], [30.2, 40.3]]], "matrix": [[1, 2], [3, 4]]}"#,
    ]);
}

#[test]
fn keys_before_an_equals_sign_are_labels() {
    masks_as(&[
        // A query string, a logfmt line, an INI or .env file.
        (
            "GET /kayit?first_name=Lezize&last_name=Korutürk&dob=1985-03-12&order_date=2024-05-01",
            "GET /kayit?first_name=[MASKED_PERSON_NAME]&last_name=[MASKED_PERSON_NAME]&dob=[MASKED_DATE_OF_BIRTH]&order_date=2024-05-01",
        ),
        (
            "level=info msg=signup name=\"Asdfgh Hjklqw\" musteri_vkn=4540536920 at=2024-05-01",
            "level=info msg=signup name=\"[MASKED_PERSON_NAME]\" musteri_vkn=[MASKED_TAX_ID_TR] at=2024-05-01",
        ),
        (
            "[musteri]\nad_soyad = Asdfgh Hjklqw\ndogum_tarihi = 04.07.1990\n",
            "[musteri]\nad_soyad = [MASKED_PERSON_NAME]\ndogum_tarihi = [MASKED_DATE_OF_BIRTH]\n",
        ),
        // The name ends before the next key.
        (
            "Name=Asdfgh Hjklqw Email=x",
            "Name=[MASKED_PERSON_NAME] Email=x",
        ),
    ]);
    // URL-encoded values: an e-mail address, a name behind a name key.
    masks_as(&[(
        "GET /signup?email=ali.veli%40example.com&name=Ay%C5%9Fe+Y%C4%B1lmaz&first_name=mehmet+ali 200",
        "GET /signup?email=[MASKED_EMAIL]&name=[MASKED_PERSON_NAME]&first_name=[MASKED_PERSON_NAME] 200",
    )]);
    // Any type: a value is decoded and read as `key: value`; only the bytes that encode what is found
    // there are masked.
    masks_as(&[
        (
            "GET /callback?tel=%2B90+532+123+45+67&ok=1",
            "GET /callback?tel=[MASKED_PHONE_TR]&ok=1",
        ),
        (
            "POST /form body=tckn%3D10000000146%26iban%3DTR330006100519786457841326",
            "POST /form body=tckn%3D[MASKED_NATIONAL_ID_TR]%26iban%3D[MASKED_IBAN_TR]",
        ),
        (
            "/ara?q=siparis+88812+icin+ali.veli%40example.com&dob=12%2F03%2F1985",
            "/ara?q=siparis+88812+icin+[MASKED_EMAIL]&dob=[MASKED_DATE_OF_BIRTH]",
        ),
    ]);
    keeps(&[
        "q=kargo+takip&sort=price%2Cdesc&name=widget+pro",
        "if a == b && total <= 5 { x = 1985; }",
        "created_at=2024-05-01 order_id=88812 city=Ankara",
        "base64: QXNkZmdoIEhqa2xxdw== dGVzdA=",
        "product_name=Widget Pro",
    ]);
}

#[test]
fn lower_case_names_behind_a_name_part_label() {
    masks_as(&[
        (
            r#"{"first_name": "mehmet", "last_name": "yılmaz", "full_name": "ayşe nur kara"}"#,
            r#"{"first_name": "[MASKED_PERSON_NAME]", "last_name": "[MASKED_PERSON_NAME]", "full_name": "[MASKED_PERSON_NAME]"}"#,
        ),
        (
            "/kayit?ad_soyad=selin akbulut&soyad=korutürk&email=x",
            "/kayit?ad_soyad=[MASKED_PERSON_NAME]&soyad=[MASKED_PERSON_NAME]&email=x",
        ),
        // Right after '=', unquoted, a value ends at a space.
        (
            "GET /kayit?last_name=korutürk 200 first_name=selin level=info",
            "GET /kayit?last_name=[MASKED_PERSON_NAME] 200 first_name=[MASKED_PERSON_NAME] level=info",
        ),
        (
            "Adı: mehmet Soyadı: yılmaz\nSurname: korutürk\n",
            "Adı: [MASKED_PERSON_NAME] Soyadı: [MASKED_PERSON_NAME]\nSurname: [MASKED_PERSON_NAME]\n",
        ),
    ]);
    // A table's columns of name parts, and a two-cell row.
    let table =
        "id\tfirst_name\tlast_name\tcity\n1\tmehmet\tyılmaz\tankara\n2\tayşe nur\tkara\tizmir\n\
                 3\tnull\ttest\tbursa\n";
    assert_eq!(
        masked(table),
        "id\tfirst_name\tlast_name\tcity\n1\t[MASKED_PERSON_NAME]\t[MASKED_PERSON_NAME]\tankara\n\
         2\t[MASKED_PERSON_NAME]\t[MASKED_PERSON_NAME]\tizmir\n3\tnull\ttest\tbursa\n"
    );
    assert_eq!(
        masked("Soyadı\tyılmaz\nÜrün\tkalem\n"),
        "Soyadı\t[MASKED_PERSON_NAME]\nÜrün\tkalem\n"
    );
    keeps(&[
        // A column of "name" or "owner" keeps what is typed in lower case.
        "id\tname\towner\tcity\n1\tadmin\tplatform\tankara\n",
        // What fills a name field without naming anyone, and labels that need not name a person.
        r#"{"first_name": null, "last_name": "test", "soyad": "yok"}"#,
        r#"{"name": "admin", "ad": "summer sale", "owner": "platform team"}"#,
        // A sentence, not a field's value; a word that goes on in digits.
        "Adı: mehmet olarak girilmiş.",
        "Soyadı: user123",
    ]);
}

#[test]
fn a_column_header_labels_every_cell_under_it() {
    let rows: String = (0..40)
        .map(|n| {
            format!(
                "{n}\tSelin\tAkbulut\t{:02}.07.1990\t4540536920\t10.{:02}.2025\n",
                1 + n % 28,
                1 + n % 12
            )
        })
        .collect();
    for header in [
        "No\tAd\tSoyad\tDoğum Tarihi\tVergi No\tSon İşlem\n",
        "id\tfirst_name\tlast_name\tdate_of_birth\tcustomer_vkn\tlast_order\n",
        "id\tfirstName\tlastName\tdateOfBirth\tvergiNo\tlastOrder\n",
    ] {
        let text = format!("{header}{rows}");
        let out = masked(&text);
        let last = out.lines().last().expect("rows");
        assert_eq!(
            last,
            "39\t[MASKED_PERSON_NAME]\t[MASKED_PERSON_NAME]\t[MASKED_DATE_OF_BIRTH]\t[MASKED_TAX_ID_TR]\t10.04.2025",
            "{header}"
        );
        assert_eq!(
            out.matches("[MASKED_DATE_OF_BIRTH]").count(),
            40,
            "{header}"
        );
    }
    // A phone column by its keyword, written as people write phone numbers.
    masks_as(&[(
        "Index\tName\tPhone 1\tPhone 2\n1\tSheryl Baxter\t229.077.5154\t001-808-617-6467x12895\n2\tPreston Lozano\t5153435776\t686-620-1820x944\n",
        "Index\tName\tPhone 1\tPhone 2\n1\t[MASKED_PERSON_NAME]\t[MASKED_PHONE_INTL]\t[MASKED_PHONE_INTL]\n2\t[MASKED_PERSON_NAME]\t[MASKED_PHONE_INTL]\t[MASKED_PHONE_INTL]\n",
    )]);
    // A line that is no header gives no column anything.
    keeps(&["Toplam\t12.03.1985\t4540536920\n1\t12.03.1985\t4540536920\n"]);
}

#[test]
fn a_phone_number_takes_its_extension() {
    masks_as(&[
        (
            "Phone: 001-808-617-6467x12895",
            "Phone: [MASKED_PHONE_INTL]",
        ),
        (
            "Tel: +1-808-617-6467x123 today",
            "Tel: [MASKED_PHONE_INTL] today",
        ),
    ]);
    keeps(&["1920x1080 screen, 0x1F4A, 4x4 vehicle, size 20x30"]);
}

#[test]
fn an_address_label_before_a_value_of_another_kind() {
    // The value wins, and the words too short to keep are left: the masked text, with the
    // placeholder where the value was, holds no address either (it was refused before).
    masks_as(&[
        (
            "Adres: x 10000000146 y",
            "Adres: x [MASKED_NATIONAL_ID_TR] y",
        ),
        (
            "Adres: ___10000000146__",
            "Adres: ___[MASKED_NATIONAL_ID_TR]__",
        ),
        (
            r#"Adres: "+1-808-617-6467 abc"#,
            r#"Adres: "[MASKED_PHONE_INTL] [MASKED_ADDRESS]"#,
        ),
    ]);
    // A street address ends at its cell's tab, before the next cell's label.
    masks_as(&[(
        "Soyadı\tAıa, Atatürk Cad. No: 12 Daire 3\tDoğum Tarihi: 12.03.1985; ",
        "Soyadı\tAıa, [MASKED_ADDRESS]\tDoğum Tarihi: [MASKED_DATE_OF_BIRTH]; ",
    )]);
    // The next field's label ends a name behind a label, even an organisation's word.
    masks_as(&[
        (
            "Soyadı: Korutürk İletişim: 0531 681 16 59",
            "Soyadı: [MASKED_PERSON_NAME] İletişim: [MASKED_PHONE_TR]",
        ),
        (
            "Soyadı: Korutürk Telefon: 0531 681 16 59",
            "Soyadı: [MASKED_PERSON_NAME] Telefon: [MASKED_PHONE_TR]",
        ),
    ]);
}
