//! POST /v1/data-process/preview over HTTP: extraction plus findings, masking of every part (the formats
//! read by content, Office files and scanned pages: `formats.rs`).

use reqwest::multipart::{Form, Part};
use reqwest::Method;

use crate::jobs::corpus;
use crate::support::{json_of, TestServer};

pub(crate) fn upload(name: &str, bytes: Vec<u8>) -> Form {
    Form::new().part("file", Part::bytes(bytes).file_name(name.to_string()))
}

/// `POST /v1/data-process/preview{query}` with one file: the status and the JSON body.
pub(crate) async fn preview(
    server: &TestServer,
    token: &str,
    query: &str,
    name: &str,
    bytes: Vec<u8>,
) -> (u16, serde_json::Value) {
    json_of(
        server
            .bearer(
                Method::POST,
                &format!("/v1/data-process/preview{query}"),
                token,
            )
            .multipart(upload(name, bytes))
            .send()
            .await
            .expect("POST"),
    )
    .await
}

/// A masked preview of one file that must succeed: its JSON body.
pub(crate) async fn masked_preview(
    server: &TestServer,
    token: &str,
    name: &str,
    bytes: Vec<u8>,
) -> serde_json::Value {
    let (status, body) = preview(server, token, "?masked=true", name, bytes).await;
    assert_eq!(status, 200, "{body}");
    body
}

#[tokio::test]
async fn preview_extracts_reports_and_masks_every_part() {
    let server = TestServer::start().await;
    let (login, _, _) = server
        .verified_account("preview@example.com", "password-1")
        .await;
    let token = login["access_token"].as_str().expect("token");
    let sidecar: serde_json::Value =
        serde_json::from_slice(&corpus("tr/tr_musteri_listesi.xlsx.pii.json")).expect("sidecar");
    let planted: Vec<String> = sidecar["pii"]
        .as_array()
        .expect("pii")
        .iter()
        .map(|p| p["value"].as_str().expect("v").to_string())
        .collect();

    let (status, body) = preview(
        &server,
        token,
        "",
        "liste.xlsx",
        corpus("tr/tr_musteri_listesi.xlsx"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let data = &body["data"];
    assert_eq!(data["metadata"]["format"], "xlsx");
    assert_eq!(data["detected_language"], "tr");
    assert!(data["quality"]["grade"].is_string());
    assert!(
        data["pii"]["pii_count"].as_u64().unwrap_or(0) >= 50,
        "{}",
        data["pii"]["pii_type_summary"]
    );
    assert!(
        planted
            .iter()
            .any(|v| data.to_string().contains(v.as_str())),
        "unmasked preview keeps the values"
    );

    let (status, body) = preview(
        &server,
        token,
        "?masked=true",
        "liste.xlsx",
        corpus("tr/tr_musteri_listesi.xlsx"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let text = body.to_string();
    for value in &planted {
        assert!(
            !text.contains(value.as_str()),
            "a planted value is in the masked preview"
        );
    }
    assert!(text.contains("[MASKED_NATIONAL_ID_TR]"));
    assert_eq!(body["data"]["masked"], true);
}

#[tokio::test]
async fn preview_rejects_bad_requests_clearly() {
    let server = TestServer::start().await;
    let (login, _, _) = server
        .verified_account("preview-errors@example.com", "password-1")
        .await;
    let token = login["access_token"].as_str().expect("token");
    let response = server
        .client
        .post(server.url("/v1/data-process/preview"))
        .multipart(upload("a.txt", b"hello world".to_vec()))
        .send()
        .await
        .expect("POST");
    assert_eq!(response.status(), 401);

    let (status, body) = json_of(
        server
            .bearer(Method::POST, "/v1/data-process/preview", token)
            .multipart(Form::new().text("other", "x"))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(
        body["detail"][0]["loc"],
        serde_json::json!(["body", "file"])
    );

    let (status, body) = json_of(
        server
            .bearer(Method::POST, "/v1/data-process/preview", token)
            .multipart(upload("program.exe", b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00\xb8\x00\x00\x00\x00\x00\x00\x00@\x00\x00\x00\x00\x00\x00\x00\x00\x00".to_vec()))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (415, Some("unsupported_format")),
        "{body}"
    );

    let (status, body) = json_of(
        server
            .bearer(Method::POST, "/v1/data-process/preview", token)
            .multipart(upload("locked.pdf", corpus("pdf/password.pdf")))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["detail"][0]["type"], "encrypted_document");

    let (status, _) = json_of(
        server
            .bearer(Method::POST, "/v1/data-process/preview?masked=maybe", token)
            .multipart(upload("a.txt", b"hello world".to_vec()))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 422);
}

/// A data file's keys and column headers label its values: every row of a CSV with snake_case headers
/// has its names, date of birth and VKN masked (not only the rows near the header), and an e-invoice's
/// customer first and family name, each in a field of its own, are masked.
#[tokio::test]
async fn masked_preview_reads_keys_and_column_headers() {
    let server = TestServer::start().await;
    let (login, _, _) = server
        .verified_account("preview-keys@example.com", "password-1")
        .await;
    let token = login["access_token"].as_str().expect("token");
    let mut csv = String::from("id,first_name,last_name,date_of_birth,customer_vkn,last_order\n");
    for n in 0..30 {
        csv.push_str(&format!(
            "{n},Lezize,Korutürk,{:02}.07.1990,4540536920,10.{:02}.2025\n",
            1 + n % 28,
            1 + n % 12
        ));
    }
    // A row typed in lower case, as web forms store names.
    csv.push_str("99,mehmet,yılmaz,,,\n");
    let body = masked_preview(&server, token, "customers.csv", csv.into_bytes()).await;
    let summary = &body["data"]["pii"]["pii_type_summary"];
    assert_eq!(summary["date_of_birth"], 30, "{summary}");
    assert_eq!(summary["tax_id_tr"], 30, "{summary}");
    let text = body["data"]["text"].as_str().expect("text");
    for raw in [
        "Lezize",
        "Korutürk",
        ".07.1990",
        "4540536920",
        "mehmet",
        "yılmaz",
    ] {
        assert!(!text.contains(raw), "{raw} is left: {text}");
    }
    // The dates of the last order are no dates of birth.
    assert!(text.contains("10.12.2025"), "{text}");

    let body = masked_preview(&server, token, "fatura.xml", corpus("tr/tr_efatura.xml")).await;
    let document = body["data"].to_string();
    for raw in ["Asliye", "Ülker"] {
        assert!(
            !document.contains(raw),
            "{raw} is left in the masked e-invoice"
        );
    }

    // Generic XML keeps its element and attribute names as keys, which tell the values apart.
    let xml = "<?xml version=\"1.0\"?>\n<customers>\n  <customer id=\"1001\">\n    \
               <firstName>Lezize</firstName>\n    <lastName>Korutürk</lastName>\n    \
               <birthDate>1979-04-12</birthDate>\n    <registered>2024-05-01</registered>\n    \
               <vergiNo>4540536920</vergiNo>\n    <product><name>Widget Pro</name></product>\n  \
               </customer>\n  <customer id=\"1002\" name=\"Asliye Ülker\" dob=\"1988-11-02\"/>\n\
               </customers>\n";
    let body = masked_preview(&server, token, "customers.xml", xml.as_bytes().to_vec()).await;
    let text = body["data"]["text"].as_str().expect("text");
    for raw in [
        "Lezize",
        "Korutürk",
        "1979-04-12",
        "4540536920",
        "Asliye",
        "1988-11-02",
    ] {
        assert!(!text.contains(raw), "{raw} is left: {text}");
    }
    for kept in [
        "birthDate: [MASKED_DATE_OF_BIRTH]",
        "registered: 2024-05-01",
        "product.name: Widget Pro",
        "customer.name: [MASKED_PERSON_NAME]",
    ] {
        assert!(text.contains(kept), "no {kept:?} in {text}");
    }
    let summary = &body["data"]["pii"]["pii_type_summary"];
    assert_eq!(summary["date_of_birth"], 2, "{summary}");

    // A query string or a logfmt line: keys before '='.
    let log = "2024-05-01T10:00:00Z level=info msg=signup first_name=Lezize dob=1979-04-12 \
               created=2024-05-01\nGET /kayit?ad=Asliye&soyad=Ülker&musteri_vkn=4540536920&last_name=korutürk 200\n";
    let body = masked_preview(&server, token, "access.log.txt", log.as_bytes().to_vec()).await;
    let text = body["data"]["text"].as_str().expect("text");
    // A name typed in lower case behind a surname's key too.
    for raw in [
        "Lezize",
        "1979-04-12",
        "Asliye",
        "Ülker",
        "4540536920",
        "korutürk",
    ] {
        assert!(!text.contains(raw), "{raw} is left: {text}");
    }
    assert!(text.contains("created=2024-05-01"), "{text}");

    // A FHIR patient: the parts of a name inside a name object, a national number labelled by the
    // record's "system", and URL-encoded values of any type in a callback's query string.
    let patient = r#"{"resourceType": "Patient", "name": [{"use": "official", "family": "Chalmers", "given": ["Peter", "James"]}], "telecom": [{"system": "phone", "value": "(03) 5555 6473", "use": "work"}], "birthDate": "1974-12-25"}
GET /callback?tel=%2B90+532+123+45+67&tckn=10000000146&q=siparis+88812+icin+ali.veli%40example.com 200
"#;
    let body = masked_preview(&server, token, "patient.json", patient.as_bytes().to_vec()).await;
    let text = body["data"]["text"].as_str().expect("text");
    for raw in [
        "Chalmers",
        "Peter",
        "James",
        "5555 6473",
        "1974-12-25",
        "%2B90",
        "10000000146",
        "ali.veli",
    ] {
        assert!(!text.contains(raw), "{raw} is left: {text}");
    }
    assert!(
        text.contains("q=siparis+88812+icin+[MASKED_EMAIL]"),
        "{text}"
    );

    // A PostgreSQL dump: the COPY line's columns head the rows under it.
    let mut dump = String::from(
        "COPY public.customers (id, first_name, last_name, birth_date, phone) FROM stdin;\n",
    );
    for n in 0..20 {
        dump.push_str(&format!(
            "{n}\tlezize\tkorutürk\t19{:02}-07-0{}\t53276543{:02}\n",
            50 + n,
            1 + n % 9,
            n
        ));
    }
    dump.push_str("\\.\n");
    let body = masked_preview(&server, token, "customers.sql", dump.into_bytes()).await;
    let text = body["data"]["text"].as_str().expect("text");
    for raw in ["lezize", "korutürk", "-07-0", "53276543"] {
        assert!(!text.contains(raw), "{raw} is left: {text}");
    }
    let summary = &body["data"]["pii"]["pii_type_summary"];
    assert_eq!(summary["date_of_birth"], 20, "{summary}");
    assert_eq!(summary["phone_tr"], 20, "{summary}");

    // A MySQL dump: INSERT statements without a column list take their columns from the table's
    // CREATE TABLE; the file stays SQL (its commas are not a CSV's), and a value's escaped quote
    // and commas do not shift the columns.
    let mut dump = String::from(
        "-- MySQL dump 10.13\n/*!40101 SET NAMES utf8mb4 */;\nCREATE TABLE `customers` (\n  `id` int NOT NULL,\n  \
         `note` text,\n  `first_name` varchar(50),\n  `last_name` varchar(50),\n  `birth_date` date,\n  \
         `mobile_phone` varchar(20),\n  PRIMARY KEY (`id`)\n) ENGINE=InnoDB;\nINSERT INTO `customers` VALUES ",
    );
    for n in 0..20 {
        dump.push_str(&format!(
            "{}({n},'it\\'s late, (again)','lezize','korutürk','19{:02}-07-0{}','053276543{:02}')",
            if n == 0 { "" } else { "," },
            50 + n,
            1 + n % 9,
            n
        ));
    }
    dump.push_str(";\n");
    let body = masked_preview(&server, token, "dump.sql", dump.into_bytes()).await;
    let text = body["data"]["text"].as_str().expect("text");
    for raw in ["lezize", "korutürk", "-07-0", "53276543"] {
        assert!(!text.contains(raw), "{raw} is left: {text}");
    }
    assert!(
        text.contains(
            "INSERT INTO `customers` VALUES (0,'it\\'s late, (again)','[MASKED_PERSON_NAME]'"
        ),
        "{text}"
    );
    let summary = &body["data"]["pii"]["pii_type_summary"];
    assert_eq!(summary["person_name"], 40, "{summary}");
    assert_eq!(summary["date_of_birth"], 20, "{summary}");
    assert_eq!(summary["phone_tr"], 20, "{summary}");

    // A sheet's values as its API returns them, pretty-printed: the first row names the columns,
    // and the file stays JSON (its commas are not a CSV's).
    let rows: Vec<String> = (0..20)
        .map(|n| {
            format!(
                "    [\"Lezize Korutürk\", \"19{:02}-07-0{}\", \"Ankara\"]",
                50 + n,
                1 + n % 9
            )
        })
        .collect();
    let sheet = format!(
        "{{\n  \"range\": \"Sheet1!A1:C21\",\n  \"values\": [\n    [\"Ad Soyad\", \"Doğum Tarihi\", \"Şehir\"],\n{}\n  ]\n}}\n",
        rows.join(",\n")
    );
    let body = masked_preview(&server, token, "sheet.json", sheet.into_bytes()).await;
    let text = body["data"]["text"].as_str().expect("text");
    for raw in ["Lezize", "Korutürk", "-07-0"] {
        assert!(!text.contains(raw), "{raw} is left: {text}");
    }
    assert!(
        text.contains("    [\"[MASKED_PERSON_NAME]\", \"[MASKED_DATE_OF_BIRTH]\", \"Ankara\"],\n"),
        "{text}"
    );
    let summary = &body["data"]["pii"]["pii_type_summary"];
    assert_eq!(summary["person_name"], 20, "{summary}");
    assert_eq!(summary["date_of_birth"], 20, "{summary}");

    // A Markdown table: its header stands over its columns (the outer pipes made an empty first
    // column, and the header, trimmed, stood one column to the left of its rows).
    let table = "| Ad Soyad | Doğum Tarihi | Şehir |\n|---|:---:|---|\n\
                 | Lezize Korutürk | 12.03.1985 | Ankara |\n| selin ülker | 04.07.1990 | İzmir |\n";
    let body = masked_preview(&server, token, "table.md", table.as_bytes().to_vec()).await;
    let text = body["data"]["text"].as_str().expect("text");
    for raw in ["Lezize", "selin", "12.03.1985", "04.07.1990"] {
        assert!(!text.contains(raw), "{raw} is left: {text}");
    }
    assert!(text.contains("[MASKED_DATE_OF_BIRTH]\tİzmir"), "{text}");

    // An e-mail whose body holds a list separated by semicolons among its prose: every row's date
    // of birth and VKN is read under the header, not only the first row's, near the header.
    let mut mail = String::from(
        "From: muhasebe@example.com\nTo: ik@example.com\nSubject: Liste\nMIME-Version: 1.0\n\
         Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n\
         Merhaba,\n\nKasım ayında başvuranların listesi aşağıdadır; sisteme işleyiniz.\n\n\
         Ad Soyad;Doğum Tarihi;Vergi No\n",
    );
    let dates: Vec<String> = (1..=8).map(|day| format!("{day:02}.03.198{day}")).collect();
    for date in &dates {
        mail.push_str(&format!("Lezize Korutürk;{date};4540536920\n"));
    }
    mail.push_str("\nİyi çalışmalar,\nMuhasebe\n");
    let body = masked_preview(&server, token, "list.eml", mail.into_bytes()).await;
    let text = body["data"]["text"].as_str().expect("text");
    for raw in dates
        .iter()
        .map(String::as_str)
        .chain(["4540536920", "Lezize"])
    {
        assert!(!text.contains(raw), "{raw} is left: {text}");
    }
    let summary = &body["data"]["pii"]["pii_type_summary"];
    assert_eq!(summary["date_of_birth"], 8, "{summary}");
    assert_eq!(summary["tax_id_tr"], 8, "{summary}");
}

/// Generated values of 37 types in every layout the catalogue claims, each behind one of its labels
/// (Turkish, English, its own language), and values whose checksum holds while their layout does not (a
/// Turkish IBAN whose reserve digit is not 0, a card whose issuer the table lacks, a PESEL that is also
/// a phone number behind its label): a masked preview leaves none of them in clear and counts each as
/// its type.
#[tokio::test]
async fn masked_preview_fails_closed_and_the_label_decides_the_type() {
    use docsieve_actors::pii_masker::{planted, synthetic::Rng, PiiType};
    let server = TestServer::start().await;
    let (login, _, _) = server
        .verified_account("preview-forms@example.com", "password-1")
        .await;
    let token = login["access_token"].as_str().expect("token");
    let mut rng = Rng::new(2026);
    let mut text = String::new();
    let mut written_values = Vec::new();
    let mut expected: std::collections::BTreeMap<&str, u64> = Default::default();
    for round in 0..3 {
        for ty in planted::GENERATED {
            let value = planted::compact(ty, &mut rng).expect("generated");
            for (_, written) in planted::layouts(ty, &value) {
                // A machine-readable zone stands on lines of its own.
                let gap = if ty == PiiType::Mrz { "\n" } else { " " };
                text.push_str(&format!("{}{gap}{written}\n", planted::labels(ty)[round]));
                written_values.push(written);
                *expected.entry(ty.name()).or_default() += 1;
            }
        }
    }
    for (line, ty) in [
        ("Hesap: TR52 0006 1705 1978 6457 8413 26", "iban_tr"),
        ("Kart: 213100000000001", "credit_card"),
        ("Kart: 3500 0000 0000 0009", "credit_card"),
        ("PESEL: 02122401358", "national_id_pl"),
    ] {
        text.push_str(line);
        text.push('\n');
        written_values.push(line.split_once(": ").expect("label").1.to_string());
        *expected.entry(ty).or_default() += 1;
    }
    let body = masked_preview(&server, token, "forms.txt", text.into_bytes()).await;
    let masked = body["data"]["text"].as_str().expect("text");
    for raw in &written_values {
        assert!(!masked.contains(raw.as_str()), "{raw} is left: {masked}");
    }
    let summary = &body["data"]["pii"]["pii_type_summary"];
    for (ty, count) in expected {
        assert_eq!(summary[ty], count, "{ty}: {summary}");
    }
}

/// Phone numbers written the way people write them at home, and names behind person labels of many
/// languages, are masked by a masked preview over HTTP; the look-alikes around them are left alone.
#[tokio::test]
async fn preview_masks_the_forms_of_the_world() {
    let server = TestServer::start().await;
    let (login, _, _) = server
        .verified_account("world@example.com", "password-1")
        .await;
    let token = login["access_token"].as_str().expect("token");
    let values = [
        "(0316) 71081 582",
        "06/ 350 75 04",
        "0729-724078",
        "+(371) 90606560",
        "(+358) 168416491",
        "00420 773 602 266",
        "+49 (0)30 1234567",
        "+1 415-555-0132 ext. 12",
        "6910 345 709",
        "Charlie Wright",
        "Frederique van der Heijden",
        "Despina Pușcașu",
        "Kristína Hodžová",
    ];
    let text = format!(
        "Telefon: {}\nTelefoon: {}\nBel {} voor meer informatie.\nMobile: {}\nPhone: {}\n\
         We spoke on {} yesterday.\nSee {} and the notes below.\nCall {} for details.\n\
         Τηλ.: {}\nContact person: {}\nContactpersoon: {}\nPersoană de contact: {}\n\
         Zákazník: {}\nOrder no. 24323000 shipped on 12.02.2019, total 1.250.000 TL.\n",
        values[0],
        values[1],
        values[2],
        values[3],
        values[4],
        values[5],
        values[6],
        values[7],
        values[8],
        values[9],
        values[10],
        values[11],
        values[12]
    );
    let body = masked_preview(&server, token, "world.txt", text.into_bytes()).await;
    let out = body.to_string();
    for value in values {
        assert!(!out.contains(value), "{value} left in clear: {out}");
    }
    assert!(out.contains("[MASKED_PHONE_INTL]"), "{out}");
    assert!(out.contains("[MASKED_PERSON_NAME]"), "{out}");
    for look_alike in ["24323000", "12.02.2019", "1.250.000 TL"] {
        assert!(out.contains(look_alike), "{look_alike} was masked: {out}");
    }
}
