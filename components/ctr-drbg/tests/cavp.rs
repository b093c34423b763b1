//! NIST CAVP's CTR_DRBG vectors (DRBGVS, `CTR_DRBG.rsp`), AES-256, each run as the
//! validation system runs it: instantiate, then (reseed files) a reseed, then two
//! generates of which only the second's output is published. With prediction
//! resistance each generate first reseeds from its own `EntropyInputPR`.
use ctr_drbg::{Df, Drbg};

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// One CAVP record. `reseed` is the reseed files' (`EntropyInputReseed`,
/// `AdditionalInputReseed`); `pr` the prediction-resistance files' `EntropyInputPR`s.
#[derive(Clone, Copy)]
struct Record {
    df: Df,
    entropy: &'static str,
    nonce: &'static str,
    personalization: &'static str,
    reseed: Option<(&'static str, &'static str)>,
    additional: [&'static str; 2],
    pr: Option<[&'static str; 2]>,
    returned: &'static str,
}

impl Record {
    fn run(&self) -> Vec<u8> {
        let mut d = Drbg::instantiate(
            self.df,
            &hex(self.entropy),
            &hex(self.nonce),
            &hex(self.personalization),
            1 << 20,
        )
        .expect("instantiate");
        if let Some((e, a)) = self.reseed {
            d.reseed(&hex(e), &hex(a)).expect("reseed");
        }
        let mut out = vec![0u8; hex(self.returned).len()];
        for i in 0..2 {
            let add = hex(self.additional[i]);
            match self.pr {
                Some(pr) => d.generate_resistant(&mut out, &hex(pr[i]), &add),
                None => d.generate(&mut out, &add),
            }
            .expect("generate");
        }
        out
    }
}

const RECORDS: &[(&str, Record)] = &[
    (
        "[AES-256 use df] [PredictionResistance = False] reseed, PersonalizationStringLen = 256, COUNT = 0",
        Record {
            df: Df::Use,
            entropy: "4cfb218673346d9d50c922e49b0dfcd090adf04f5c3ba47327dfcd6fa63a785c",
            nonce: "016962a7fd2787a24bf6be47ef3783f1",
            personalization: "88eeb8e0e83bf3294bdacd6099ebe4bf55ecd9113f71e5ebcb4575f3d6a68a6b",
            reseed: Some((
                "b7ec46072363834a1b0133f2c23891db4f11a68651f23e3a8b1fdc03b192c7e7",
                "",
            )),
            additional: ["", ""],
            pr: None,
            returned: "a55180a190bef3adaf28f6b795e9f1f3d6dfa1b27dd0467b0c75f5fa931e971475b27cae03a29654e2f40966ea33643040d1400fe677873af8097c1fe9f00298",
        },
    ),
    (
        "[AES-256 use df] [PredictionResistance = True] PersonalizationStringLen = 256, AdditionalInputLen = 256, COUNT = 0",
        Record {
            df: Df::Use,
            entropy: "534346a3e0baa65d7a51871b6d633a6f1efa9ff55dfde3212c95029adf2387d9",
            nonce: "0cbe99821509975d824fd826c47d2abc",
            personalization: "020d7340569e68d992e6e8ddfbead9f993c74d971e4339fe91074f87e9d7d777",
            reseed: None,
            additional: [
                "f41040eff2a7010287c2a76d7867a66e61299be1e1247a6b22a64b829ada8624",
                "94efe68e2185646a17bb8a83268142a7b7a02786c1ee90ab8f7399ccf543de26",
            ],
            pr: Some([
                "286091709d2e91bfef6654b8449d5e5564b6c2fe1f3e4e6e59fe776461bfb0dc",
                "e68e127b2e5b9d6539c26f7e78bec13314e37febdb7105d1d65f0bde23c87d38",
            ]),
            returned: "da6389d151e3b2b332fbcc02b2cc5af4f69835e9fbbe19130f91cbf30a3c24580ebfb4311b3487e9d6a61de9dc2842c107152158b0e75a932c38e5b8ddff10e6",
        },
    ),
    (
        // The older CTR_DRBG.txt's records (ReturnedBitsLen = 128).
        "[AES-256 use df] [PredictionResistance = True] PersonalizationStringLen = 256, AdditionalInputLen = 256, COUNT = 0 (CTR_DRBG.txt, 128 bits returned)",
        Record {
            df: Df::Use,
            entropy: "2a02beaabab46a735385a92aae4adcebe807fbf3bce3f42e005346006480dd57",
            nonce: "2c86a2f970b5cad39a08dcb66bcee505",
            personalization: "db6ce184be07ae554e345db8479885e03d3e9f60fa1c7d5719e509dce21041ab",
            reseed: None,
            additional: [
                "1dc31193cbc4f6bb57b00970b9c605864e75957d3decceb40be4efd17bab566f",
                "d6986348949f26f71f441323a7de09129004cebcac827058ba7ddc251ee4bf7c",
            ],
            pr: Some([
                "8fb9abf933ccbec6bd8b615aecc64a5b0321e7370302bca528b9fe7aa8ef6fb0",
                "e504ef7c8d02d768954c6434303acb07c90aef26c65743fb7dbee26175cdee34",
            ]),
            returned: "756d16ef14aed9c2280b66ff201f2133",
        },
    ),
    (
        "[AES-256 no df] [PredictionResistance = False] no reseed, PersonalizationStringLen = 0, COUNT = 0",
        Record {
            df: Df::No,
            entropy: "df5d73faa468649edda33b5cca79b0b05600419ccb7a879ddfec9db32ee494e5531b51de16a30f769262474c73bec010",
            nonce: "",
            personalization: "",
            reseed: None,
            additional: ["", ""],
            pr: None,
            returned: "d1c07cd95af8a7f11012c84ce48bb8cb87189e99d40fccb1771c619bdf82ab2280b1dc2f2581f39164f7ac0c510494b3a43c41b7db17514c87b107ae793e01c5",
        },
    ),
    (
        "[AES-256 no df] [PredictionResistance = False] reseed, PersonalizationStringLen = 0, COUNT = 0",
        Record {
            df: Df::No,
            entropy: "e4bc23c5089a19d86f4119cb3fa08c0a4991e0a1def17e101e4c14d9c323460a7c2fb58e0b086c6c57b55f56cae25bad",
            nonce: "",
            personalization: "",
            reseed: Some((
                "fd85a836bba85019881e8c6bad23c9061adc75477659acaea8e4a01dfe07a1832dad1c136f59d70f8653a5dc118663d6",
                "",
            )),
            additional: ["", ""],
            pr: None,
            returned: "b2cb8905c05e5950ca31895096be29ea3d5a3b82b269495554eb80fe07de43e193b9e7c3ece73b80e062b1c1f68202fbb1c52a040ea2478864295282234aaada",
        },
    ),
    (
        "[AES-256 no df] [PredictionResistance = True] PersonalizationStringLen = 384, AdditionalInputLen = 384, COUNT = 0 (CTR_DRBG.txt, 128 bits returned)",
        Record {
            df: Df::No,
            entropy: "7e833fa639dccb38176aa359a98c1f50d3db34dda43965e4771708574904bd685c7d2aee0cf2fb16ef16184d326a266c",
            nonce: "a38aa46da6c140f8a302f1acf3ea7f2d",
            personalization: "c0541ea593d98b2b43152c072625c708f0b34b4496fec7c56427aa785bbc4051ce896bc13f9ca05c759824c5e13e86db",
            reseed: None,
            additional: [
                "0ee30f0790e2de20b6f76fef87dc7fc40d9d053191878c9a1953d2f82091a0ef9759ea121b2f29747635f7715a96ebbc",
                "f12435a68c93287e84ea3d274418c9137349b983791529532fef4306e7cb5c0f9f104c607fbf0c379be49426e53bf563",
            ],
            pr: Some([
                "37269aa628e035781242445c55bcc8b61f24f332880269a7ed1db74d8b4412215e6053963bb9317f2a87bf3c07bb2722",
                "dc914811637b7941368c4fe2c984049cdc5b6c8d6152eafa923bb4364c064ad1b18e3203fda4f75aa65c63a1b996fa12",
            ]),
            returned: "1cbafd480ff48563d67d9114ef676b7f",
        },
    ),
];

#[test]
fn cavp_ctr_drbg_aes_256_records_give_their_returned_bits() {
    let mut wrong = Vec::new();
    for (name, record) in RECORDS {
        if record.run() != hex(record.returned) {
            wrong.push(*name);
        }
    }
    assert!(wrong.is_empty(), "wrong output for {wrong:#?}");
}

#[test]
fn one_changed_input_bit_changes_the_output() {
    // The records above would pass a DRBG that ignored a part; flip one bit of each part
    // of the prediction-resistance record and the output must move.
    let (_, base) = &RECORDS[1];
    let want = hex(base.returned);
    let flip = |s: &'static str| -> &'static str {
        let mut b = hex(s);
        b[0] ^= 1;
        Box::leak(
            b.iter()
                .map(|x| format!("{x:02x}"))
                .collect::<String>()
                .into_boxed_str(),
        )
    };
    let variants = [
        Record {
            entropy: flip(base.entropy),
            ..*base
        },
        Record {
            nonce: flip(base.nonce),
            ..*base
        },
        Record {
            personalization: flip(base.personalization),
            ..*base
        },
        Record {
            additional: [flip(base.additional[0]), base.additional[1]],
            ..*base
        },
        Record {
            pr: Some([base.pr.unwrap()[0], flip(base.pr.unwrap()[1])]),
            ..*base
        },
    ];
    for (i, v) in variants.iter().enumerate() {
        assert_ne!(v.run(), want, "part {i} did not reach the output");
    }
}

/// `tests/data/ctr_drbg_aes256_df.txt`: 32 more records of the older CTR_DRBG.txt
/// ([AES-256 use df], 128 bits returned), prediction resistance on and off, with and
/// without personalization and additional input, run as DRBGVS ran that file.
#[test]
fn cavp_ctr_drbg_txt_records_give_their_returned_bits() {
    let text = include_str!("data/ctr_drbg_aes256_df.txt");
    let (mut run, mut wrong) = (0, Vec::new());
    for (n, line) in text.lines().enumerate() {
        let Some((kind @ ("pr" | "nopr"), rest)) = line.split_once(':') else {
            continue;
        };
        let f: Vec<Vec<u8>> = rest.split(':').map(hex).collect();
        let mut out = [0u8; 16];
        let got = match (kind, f.as_slice()) {
            ("pr", [init, entropy, add1, add2, want]) => {
                // The nonce and personalization arrive concatenated: the df reads them so.
                let mut d = Drbg::instantiate(Df::Use, &entropy[..32], init, &[], 1 << 20).unwrap();
                d.generate_resistant(&mut out, &entropy[32..64], add1)
                    .unwrap();
                d.generate_resistant(&mut out, &entropy[64..96], add2)
                    .unwrap();
                out == want[..]
            }
            ("nopr", [init, entropy, add1, add_reseed, add2, want]) => {
                let mut d = Drbg::instantiate(Df::Use, &entropy[..32], init, &[], 1 << 20).unwrap();
                d.generate(&mut out, add1).unwrap();
                d.reseed(&entropy[32..64], add_reseed).unwrap();
                d.generate(&mut out, add2).unwrap();
                out == want[..]
            }
            _ => continue,
        };
        run += 1;
        if !got {
            wrong.push(n + 1);
        }
    }
    assert_eq!(run, 32, "every record read");
    assert!(wrong.is_empty(), "wrong output on lines {wrong:?}");
}
