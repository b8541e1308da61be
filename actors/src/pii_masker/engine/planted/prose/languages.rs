//! The prose check's languages, one row each: sentences that name a person in full, sentences that
//! mention that person again, the titles before a surname, and sentences that name no one.
//!
//! Placeholders: `{name}` (given name and surname), `{surname}`, `{given}`, `{titled}` (the language's
//! title and the surname), `{inflected}` (the surname inflected: English and German genitive, Turkish
//! genitive after an apostrophe, Polish and Czech genitive), `{thing}` (a place, a company, a bank, a
//! product: what a name-free document has where a person would be).

/// One language of the prose check.
pub struct Prose {
    pub code: &'static str,
    /// Sentences that name a person in full: `{name}`.
    pub first: &'static [&'static str],
    /// Sentences that mention the person again: `{surname}`, `{given}`, `{titled}`, `{inflected}`.
    pub later: &'static [&'static str],
    /// The titles written before a surname: (a man's, a woman's).
    pub titles: (&'static str, &'static str),
    /// Sentences that name no one, with capitalised words of places, firms, months and products.
    pub filler: &'static [&'static str],
}

pub const LANGUAGES: &[Prose] = &[
    Prose {
        code: "en",
        first: &[
            "The report was written by {name} in March.",
            "Yesterday {name} called the support desk about the delayed shipment.",
            "According to {name}, the delivery arrived on time.",
            "We met {name} at the branch office last week.",
            "The contract was signed on Monday; {name} will follow up.",
        ],
        later: &[
            "Later, {surname} told reporters that the plan was ready.",
            "{given} replied on Friday with the revised figures.",
            "{titled} declined to comment on the audit.",
            "{inflected} proposal was accepted by the board.",
            "The committee thanked {surname} for the careful review.",
        ],
        titles: ("Mr.", "Ms."),
        filler: &[
            "The shipment from Rotterdam reached Leeds on Tuesday.",
            "Northwind Trading Ltd. raised its prices in September.",
            "Quarterly Review: Sales And Margins",
            "The Galaxy Tab order was cancelled by Barclays Bank.",
            "Our office in Manchester closes early in December.",
            "The board of {thing} approved the budget in April.",
        ],
    },
    Prose {
        code: "de",
        first: &[
            "Laut {name} ist die Lieferung pünktlich angekommen.",
            "Der Bericht wurde im März von {name} verfasst.",
            "Gestern hat {name} beim Kundendienst angerufen.",
            "Wir haben {name} letzte Woche in der Filiale getroffen.",
            "Den Vertrag hat {name} am Montag unterschrieben.",
        ],
        later: &[
            "{given} rief am Montag zurück.",
            "Später erklärte {surname}, der Plan sei fertig.",
            "{titled} wollte sich dazu nicht äußern.",
            "{inflected} Vorschlag wurde vom Vorstand angenommen.",
            "Der Ausschuss dankte {surname} für die sorgfältige Prüfung.",
        ],
        titles: ("Herr", "Frau"),
        filler: &[
            "Die Lieferung aus Hamburg erreichte München am Dienstag.",
            "Die Nordwind Handel GmbH erhöhte im September ihre Preise.",
            "Quartalsbericht: Umsatz Und Marge",
            "Die Bestellung wurde von der Deutschen Bank storniert.",
            "Unser Büro in Köln schließt im Dezember früher.",
            "Der Vorstand von {thing} genehmigte im April das Budget.",
        ],
    },
    Prose {
        code: "fr",
        first: &[
            "Selon {name}, la livraison est arrivée à l'heure.",
            "Le rapport a été rédigé par {name} en mars.",
            "Hier, {name} a appelé le service client.",
            "Nous avons rencontré {name} à l'agence la semaine dernière.",
            "Le contrat a été signé lundi par {name}.",
        ],
        later: &[
            "Plus tard, {surname} a déclaré que le plan était prêt.",
            "{given} a répondu vendredi avec les chiffres révisés.",
            "{titled} n'a pas souhaité commenter l'audit.",
            "Le comité a remercié {surname} pour son examen attentif.",
        ],
        titles: ("M.", "Mme"),
        filler: &[
            "La cargaison de Marseille est arrivée à Lyon mardi.",
            "La société Nordvent Commerce SARL a augmenté ses prix en septembre.",
            "Rapport Trimestriel : Ventes Et Marges",
            "La commande a été annulée par la Société Générale.",
            "Notre bureau de Bordeaux ferme plus tôt en décembre.",
            "Le conseil de {thing} a approuvé le budget en avril.",
        ],
    },
    Prose {
        code: "it",
        first: &[
            "Secondo {name}, la consegna è arrivata puntuale.",
            "Il rapporto è stato scritto da {name} a marzo.",
            "Ieri {name} ha chiamato l'assistenza clienti.",
            "Abbiamo incontrato {name} in filiale la settimana scorsa.",
            "Il contratto è stato firmato lunedì da {name}.",
        ],
        later: &[
            "Più tardi {surname} ha detto che il piano era pronto.",
            "{given} ha risposto venerdì con i dati aggiornati.",
            "{titled} non ha voluto commentare la verifica.",
            "Il comitato ha ringraziato {surname} per l'attenta revisione.",
        ],
        titles: ("Sig.", "Sig.ra"),
        filler: &[
            "La spedizione da Genova è arrivata a Milano martedì.",
            "La Ventonord Commercio S.r.l. ha aumentato i prezzi a settembre.",
            "Relazione Trimestrale: Vendite E Margini",
            "L'ordine è stato annullato da Banca Intesa.",
            "Il nostro ufficio di Torino chiude prima a dicembre.",
            "Il consiglio di {thing} ha approvato il bilancio ad aprile.",
        ],
    },
    Prose {
        code: "es",
        first: &[
            "Según {name}, la entrega llegó a tiempo.",
            "El informe fue redactado por {name} en marzo.",
            "Ayer {name} llamó al servicio de atención al cliente.",
            "Conocimos a {name} en la sucursal la semana pasada.",
            "El contrato fue firmado el lunes por {name}.",
        ],
        later: &[
            "Más tarde, {surname} dijo que el plan estaba listo.",
            "{given} respondió el viernes con las cifras revisadas.",
            "{titled} no quiso comentar la auditoría.",
            "El comité agradeció a {surname} la revisión cuidadosa.",
        ],
        titles: ("Sr.", "Sra."),
        filler: &[
            "El envío desde Valencia llegó a Sevilla el martes.",
            "Vientonorte Comercial S.A. subió sus precios en septiembre.",
            "Informe Trimestral: Ventas Y Márgenes",
            "El pedido fue cancelado por el Banco Santander.",
            "Nuestra oficina de Bilbao cierra antes en diciembre.",
            "El consejo de {thing} aprobó el presupuesto en abril.",
        ],
    },
    Prose {
        code: "nl",
        first: &[
            "Volgens {name} is de levering op tijd aangekomen.",
            "Het rapport is in maart geschreven door {name}.",
            "Gisteren belde {name} met de klantenservice.",
            "We hebben {name} vorige week op het kantoor ontmoet.",
            "Het contract is maandag door {name} ondertekend.",
        ],
        later: &[
            "Later zei {surname} dat het plan klaar was.",
            "{given} antwoordde vrijdag met de herziene cijfers.",
            "{titled} wilde niet reageren op de controle.",
            "De commissie bedankte {surname} voor de zorgvuldige controle.",
        ],
        titles: ("dhr.", "mevr."),
        filler: &[
            "De zending uit Rotterdam kwam dinsdag aan in Utrecht.",
            "Noordwind Handel B.V. verhoogde in september de prijzen.",
            "Kwartaalverslag: Omzet En Marges",
            "De bestelling is geannuleerd door de Rabobank.",
            "Ons kantoor in Eindhoven sluit in december eerder.",
            "Het bestuur van {thing} keurde in april de begroting goed.",
        ],
    },
    Prose {
        code: "pl",
        first: &[
            "Raport przygotował {name} w marcu.",
            "{name} potwierdził, że dostawa dotarła na czas.",
            "Wczoraj {name} zadzwonił do działu obsługi klienta.",
            "Umowę podpisał w poniedziałek {name}.",
            "W zeszłym tygodniu {name} odwiedził nasz oddział.",
        ],
        later: &[
            "Później {surname} powiedział, że plan jest gotowy.",
            "{given} odpowiedział w piątek.",
            "{titled} odmówił komentarza.",
            "Wniosek {inflected} został przyjęty przez zarząd.",
        ],
        titles: ("Pan", "Pani"),
        filler: &[
            "Przesyłka z Gdańska dotarła do Krakowa we wtorek.",
            "Spółka Wiatr Północny Sp. z o.o. podniosła ceny we wrześniu.",
            "Raport Kwartalny: Sprzedaż I Marże",
            "Zamówienie anulował Bank Pekao.",
            "Nasze biuro w Poznaniu jest w grudniu krócej otwarte.",
            "Zarząd {thing} zatwierdził budżet w kwietniu.",
        ],
    },
    Prose {
        code: "sv",
        first: &[
            "Enligt {name} kom leveransen i tid.",
            "Rapporten skrevs av {name} i mars.",
            "I går ringde {name} till kundtjänst.",
            "Vi träffade {name} på kontoret förra veckan.",
            "Avtalet undertecknades i måndags av {name}.",
        ],
        later: &[
            "Senare sa {surname} att planen var klar.",
            "{given} svarade på fredagen med de nya siffrorna.",
            "Styrelsen tackade {surname} för den noggranna granskningen.",
        ],
        titles: ("herr", "fru"),
        filler: &[
            "Sändningen från Göteborg kom till Malmö i tisdags.",
            "Nordvind Handel AB höjde priserna i september.",
            "Kvartalsrapport: Försäljning Och Marginaler",
            "Beställningen avbröts av Swedbank.",
            "Vårt kontor i Uppsala stänger tidigare i december.",
            "Styrelsen för {thing} godkände budgeten i april.",
        ],
    },
    Prose {
        code: "da",
        first: &[
            "Ifølge {name} kom leveringen til tiden.",
            "Rapporten blev skrevet af {name} i marts.",
            "I går ringede {name} til kundeservice.",
            "Vi mødte {name} på kontoret i sidste uge.",
            "Kontrakten blev underskrevet mandag af {name}.",
        ],
        later: &[
            "Senere sagde {surname}, at planen var klar.",
            "{given} svarede fredag med de nye tal.",
            "Udvalget takkede {surname} for den grundige gennemgang.",
        ],
        titles: ("hr.", "fru"),
        filler: &[
            "Forsendelsen fra Aarhus nåede Odense tirsdag.",
            "Nordvind Handel ApS hævede priserne i september.",
            "Kvartalsrapport: Salg Og Marginer",
            "Ordren blev annulleret af Danske Bank.",
            "Vores kontor i Aalborg lukker tidligere i december.",
            "Bestyrelsen for {thing} godkendte budgettet i april.",
        ],
    },
    Prose {
        code: "pt",
        first: &[
            "Segundo {name}, a entrega chegou a tempo.",
            "O relatório foi escrito por {name} em março.",
            "Ontem {name} ligou para o apoio ao cliente.",
            "Encontrámos {name} na agência na semana passada.",
            "O contrato foi assinado na segunda-feira por {name}.",
        ],
        later: &[
            "Mais tarde, {surname} disse que o plano estava pronto.",
            "{given} respondeu na sexta-feira com os números revistos.",
            "{titled} não quis comentar a auditoria.",
            "A comissão agradeceu a {surname} a revisão cuidadosa.",
        ],
        titles: ("Sr.", "Sra."),
        filler: &[
            "A remessa do Porto chegou a Lisboa na terça-feira.",
            "A Ventonorte Comércio Lda. aumentou os preços em setembro.",
            "Relatório Trimestral: Vendas E Margens",
            "A encomenda foi cancelada pelo Banco Millennium.",
            "O nosso escritório em Coimbra fecha mais cedo em dezembro.",
            "O conselho da {thing} aprovou o orçamento em abril.",
        ],
    },
    Prose {
        code: "tr",
        first: &[
            "Rapor mart ayında {name} tarafından hazırlandı.",
            "Dün {name} müşteri hizmetlerini aradı.",
            "{name} teslimatın zamanında yapıldığını söyledi.",
            "Geçen hafta şubede {name} ile görüştük.",
            "Sözleşmeyi pazartesi günü {name} imzaladı.",
        ],
        later: &[
            "Daha sonra {surname} planın hazır olduğunu açıkladı.",
            "{given} cuma günü yanıt verdi.",
            "{inflected} önerisi yönetim kurulunca kabul edildi.",
            "Kurul, {surname} ile yeniden görüşecek.",
        ],
        titles: ("Bay", "Bayan"),
        filler: &[
            "İzmir'den gelen sevkiyat salı günü Bursa'ya ulaştı.",
            "Kuzeyrüzgar Ticaret A.Ş. eylülde fiyatlarını artırdı.",
            "Çeyrek Raporu: Satışlar Ve Kârlılık",
            "Sipariş Garanti Bankası tarafından iptal edildi.",
            "Ankara ofisimiz aralık ayında erken kapanıyor.",
            "{thing} yönetimi nisan ayında bütçeyi onayladı.",
        ],
    },
    Prose {
        code: "cs",
        first: &[
            "{name} potvrdil, že zásilka dorazila včas.",
            "Zprávu v březnu připravil {name}.",
            "Včera {name} zavolal na zákaznickou linku.",
            "Smlouvu v pondělí podepsal {name}.",
            "Minulý týden {name} navštívil naši pobočku.",
        ],
        later: &[
            "Později {surname} řekl, že plán je hotový.",
            "{given} odpověděl v pátek.",
            "{titled} odmítl audit komentovat.",
            "Návrh {inflected} představenstvo přijalo.",
        ],
        titles: ("pan", "paní"),
        filler: &[
            "Zásilka z Brna dorazila v úterý do Plzně.",
            "Společnost Severní Vítr s.r.o. v září zvýšila ceny.",
            "Čtvrtletní Zpráva: Tržby A Marže",
            "Objednávku zrušila Komerční banka.",
            "Naše kancelář v Ostravě má v prosinci zkrácenou dobu.",
            "Představenstvo {thing} v dubnu schválilo rozpočet.",
        ],
    },
];

/// What a name-free document names where a person would stand: places, firms, banks, products.
pub const THINGS: &[&str] = &[
    "Deutsche Bank",
    "Northwind Trading",
    "Rotterdam",
    "Banco Santander",
    "Galaxy Tab",
    "Istanbul Airport",
    "Credit Suisse",
    "Nordic Logistics",
    "Quarterly Review",
    "Atlas Holding",
    "Société Générale",
    "Garanti Bankası",
];
