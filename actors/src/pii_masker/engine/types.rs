//! The 46 personal-data types, one row each. Their names are the public contract (placeholders,
//! summaries, exports). The declaration order is the tie-break priority when two types claim the same
//! span. A row's last column says what the engine knows of the type's values ([`Trait`]): a new type is
//! a new row, and what it is (checksummed, with surrogates, written in words) is said there once.

use serde::{Deserialize, Serialize};

/// What the engine knows of a type's values, the last column of the type table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trait {
    /// Every form carries a check that a random value of its shape fails (check digits, a checksum);
    /// the other types are recognised by shape and context.
    Checksum = 1,
    /// Some forms carry a check and others none: a VIN (no check digit outside North America), a crypto
    /// wallet (an all-lower-case Ethereum address has none), an MRZ (a finding spans two or three
    /// lines, the check is on one).
    SomeChecksum = 2,
    /// The `surrogate` operator writes a fake value of the type (see `surrogate::surrogate`).
    Surrogate = 4,
    /// Written in words that can be cut: a name, an address, an e-mail address. Such a value that
    /// crosses one of another kind loses to it and keeps its words outside it.
    Words = 8,
}

macro_rules! pii_types {
    ($($variant:ident => $name:literal, $placeholder:literal, $tier:literal, [$($trait:ident)*];)*) => {
        /// One personal-data type.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema)]
        #[serde(rename_all = "snake_case")]
        pub enum PiiType {
            $($variant,)*
        }

        impl PiiType {
            /// Every type, in priority order.
            pub const ALL: &'static [PiiType] = &[$(PiiType::$variant,)*];

            /// The public name, e.g. `national_id_tr`.
            pub fn name(self) -> &'static str {
                match self {
                    $(PiiType::$variant => $name,)*
                }
            }

            /// `[MASKED_<NAME>]`.
            pub fn placeholder(self) -> &'static str {
                match self {
                    $(PiiType::$variant => $placeholder,)*
                }
            }

            /// Precision tier of pii-types.md: `A`, `A-`, `B`, `C` or `D`.
            pub fn tier(self) -> &'static str {
                match self {
                    $(PiiType::$variant => $tier,)*
                }
            }

            /// Whether the type's row says `what` of it.
            pub fn is(self, what: Trait) -> bool {
                let traits: u8 = match self {
                    $(PiiType::$variant => 0 $(| Trait::$trait as u8)*,)*
                };
                traits & what as u8 != 0
            }

            pub fn from_name(name: &str) -> Option<PiiType> {
                match name {
                    $($name => Some(PiiType::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

pii_types! {
    NationalIdTr => "national_id_tr", "[MASKED_NATIONAL_ID_TR]", "A", [Checksum Surrogate];
    IbanTr => "iban_tr", "[MASKED_IBAN_TR]", "A", [Checksum Surrogate];
    Iban => "iban", "[MASKED_IBAN]", "A", [Checksum Surrogate];
    Email => "email", "[MASKED_EMAIL]", "A", [Surrogate Words];
    CreditCard => "credit_card", "[MASKED_CREDIT_CARD]", "A", [Checksum Surrogate];
    Mrz => "mrz", "[MASKED_MRZ]", "A", [SomeChecksum];
    PhoneTr => "phone_tr", "[MASKED_PHONE_TR]", "B", [Surrogate];
    TaxIdTr => "tax_id_tr", "[MASKED_TAX_ID_TR]", "B", [Checksum Surrogate];
    IsyeriSicilNo => "isyeri_sicil_no", "[MASKED_ISYERI_SICIL_NO]", "B", [];
    EmeklilikNo => "emeklilik_no", "[MASKED_EMEKLILIK_NO]", "C", [];
    BagkurNo => "bagkur_no", "[MASKED_BAGKUR_NO]", "C", [];
    PassportTr => "passport_tr", "[MASKED_PASSPORT_TR]", "B", [];
    IdCardSerialTr => "id_card_serial_tr", "[MASKED_ID_CARD_SERIAL_TR]", "C", [];
    DriverLicenseTr => "driver_license_tr", "[MASKED_DRIVER_LICENSE_TR]", "C", [];
    LicensePlateTr => "license_plate_tr", "[MASKED_LICENSE_PLATE_TR]", "B", [];
    TaxIdDe => "tax_id_de", "[MASKED_TAX_ID_DE]", "A", [Checksum Surrogate];
    SocialSecurityFr => "social_security_fr", "[MASKED_SOCIAL_SECURITY_FR]", "A", [Checksum];
    NationalIdEs => "national_id_es", "[MASKED_NATIONAL_ID_ES]", "A", [Checksum Surrogate];
    ForeignerIdEs => "foreigner_id_es", "[MASKED_FOREIGNER_ID_ES]", "A", [Checksum Surrogate];
    FiscalCodeIt => "fiscal_code_it", "[MASKED_FISCAL_CODE_IT]", "A", [Checksum];
    NationalIdPl => "national_id_pl", "[MASKED_NATIONAL_ID_PL]", "A-", [Checksum];
    NationalIdBe => "national_id_be", "[MASKED_NATIONAL_ID_BE]", "A-", [Checksum];
    PersonalIdSe => "personal_id_se", "[MASKED_PERSONAL_ID_SE]", "A-", [Checksum];
    NationalInsuranceUk => "national_insurance_uk", "[MASKED_NATIONAL_INSURANCE_UK]", "A-", [];
    NhsNumberUk => "nhs_number_uk", "[MASKED_NHS_NUMBER_UK]", "B", [Checksum Surrogate];
    CitizenIdNl => "citizen_id_nl", "[MASKED_CITIZEN_ID_NL]", "B", [Checksum Surrogate];
    VatEu => "vat_eu", "[MASKED_VAT_EU]", "A", [Checksum];
    SsnUs => "ssn_us", "[MASKED_SSN_US]", "B", [];
    ItinUs => "itin_us", "[MASKED_ITIN_US]", "B", [];
    EinUs => "ein_us", "[MASKED_EIN_US]", "B", [];
    MbiUs => "mbi_us", "[MASKED_MBI_US]", "A-", [];
    NpiUs => "npi_us", "[MASKED_NPI_US]", "B", [Checksum Surrogate];
    AbaRoutingUs => "aba_routing_us", "[MASKED_ABA_ROUTING_US]", "B", [Checksum Surrogate];
    PassportUs => "passport_us", "[MASKED_PASSPORT_US]", "C", [];
    DriverLicenseUs => "driver_license_us", "[MASKED_DRIVER_LICENSE_US]", "C", [];
    PhoneIntl => "phone_intl", "[MASKED_PHONE_INTL]", "B", [];
    Imei => "imei", "[MASKED_IMEI]", "B", [Checksum Surrogate];
    Vin => "vin", "[MASKED_VIN]", "A", [SomeChecksum];
    CryptoWallet => "crypto_wallet", "[MASKED_CRYPTO_WALLET]", "A", [SomeChecksum];
    BicSwift => "bic_swift", "[MASKED_BIC_SWIFT]", "B", [];
    Ipv4 => "ipv4", "[MASKED_IPV4]", "A-", [];
    Ipv6 => "ipv6", "[MASKED_IPV6]", "A", [];
    MacAddress => "mac_address", "[MASKED_MAC_ADDRESS]", "A", [];
    DateOfBirth => "date_of_birth", "[MASKED_DATE_OF_BIRTH]", "C", [Surrogate];
    PersonName => "person_name", "[MASKED_PERSON_NAME]", "D", [Surrogate Words];
    Address => "address", "[MASKED_ADDRESS]", "D", [Surrogate Words];
}

impl PiiType {
    /// A bit for type sets (46 types fit a u64).
    pub const fn bit(self) -> u64 {
        1u64 << (self as u8)
    }

    /// Lower is more important.
    pub fn priority(self) -> u8 {
        self as u8
    }
}

/// A set of types as a bit mask.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TypeSet(pub u64);

impl TypeSet {
    pub fn all() -> TypeSet {
        TypeSet(PiiType::ALL.iter().fold(0, |acc, t| acc | t.bit()))
    }

    pub fn contains(self, ty: PiiType) -> bool {
        self.0 & ty.bit() != 0
    }

    pub fn with(self, ty: PiiType) -> TypeSet {
        TypeSet(self.0 | ty.bit())
    }

    pub fn without(self, ty: PiiType) -> TypeSet {
        TypeSet(self.0 & !ty.bit())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_46_types_with_upper_case_placeholders() {
        assert_eq!(PiiType::ALL.len(), 46);
        for ty in PiiType::ALL {
            assert_eq!(
                ty.placeholder(),
                format!("[MASKED_{}]", ty.name().to_uppercase())
            );
            assert_eq!(PiiType::from_name(ty.name()), Some(*ty));
        }
        assert_eq!(PiiType::ALL[0], PiiType::NationalIdTr);
        // Each type's number is its place in `ALL` (the summary counts by it).
        for (place, ty) in PiiType::ALL.iter().enumerate() {
            assert_eq!(*ty as usize, place, "{ty:?}");
        }
    }
}
