//! AEAD known answers: NIST CAVP's AES-GCM files (`gcmEncryptExtIV128.rsp` and
//! `gcmDecrypt128.rsp` of gcmtestvectors.zip, failing tags included: a `FAIL` case has
//! no plaintext), SP 800-38C's appendix C examples 1 to 3 (example 4's 64 KiB of AAD is
//! past what one request takes), and cases of CAVP's CCM files (DVPT and VNT of
//! ccmtestvectors.zip: decryption-verification and variable-nonce tests). Hex, decoded
//! by [`crate::hex`]; the tag's length is the tag's.

use pd_idl::aead::AeadAlgorithm;

/// One published case.
#[derive(Clone, Copy, Debug)]
pub struct AeadVector {
    /// The file or document and the case in it.
    pub source: &'static str,
    pub algorithm: AeadAlgorithm,
    pub key: &'static str,
    pub nonce: &'static str,
    pub aad: &'static str,
    /// `None`: the published answer is FAIL (the tag does not verify).
    pub plain: Option<&'static str>,
    pub cipher: &'static str,
    pub tag: &'static str,
}

const fn gcm(
    source: &'static str,
    key: &'static str,
    nonce: &'static str,
    aad: &'static str,
    plain: Option<&'static str>,
    cipher: &'static str,
    tag: &'static str,
) -> AeadVector {
    AeadVector {
        source,
        algorithm: AeadAlgorithm::AesGcm,
        key,
        nonce,
        aad,
        plain,
        cipher,
        tag,
    }
}

const fn ccm(
    source: &'static str,
    key: &'static str,
    nonce: &'static str,
    aad: &'static str,
    plain: &'static str,
    cipher: &'static str,
    tag: &'static str,
) -> AeadVector {
    AeadVector {
        source,
        algorithm: AeadAlgorithm::AesCcm,
        key,
        nonce,
        aad,
        plain: Some(plain),
        cipher,
        tag,
    }
}

/// CAVP AES-GCM, 128-bit keys, 96-bit IVs, 128-bit tags.
#[rustfmt::skip] // one published case to a line, as the files have them
pub const GCM: &[AeadVector] = &[
    // gcmEncryptExtIV128.rsp
    gcm("gcmEncryptExtIV128 PT0 AAD0 #0", "11754cd72aec309bf52f7687212e8957", "3c819d9a9bed087615030b65", "", Some(""), "", "250327c674aaf477aef2675748cf6971"),
    gcm("gcmEncryptExtIV128 PT0 AAD0 #1", "ca47248ac0b6f8372a97ac43508308ed", "ffd2b598feabc9019262d2be", "", Some(""), "", "60d20404af527d248d893ae495707d1a"),
    gcm("gcmEncryptExtIV128 PT0 AAD128 #0", "77be63708971c4e240d1cb79e8d77feb", "e0e00f19fed7ba0136a797f3", "7a43ec1d9c0a5a78a0b16533a6213cab", Some(""), "", "209fcc8d3675ed938e9c7166709dd946"),
    gcm("gcmEncryptExtIV128 PT0 AAD128 #1", "7680c5d3ca6154758e510f4d25b98820", "f8f105f9c3df4965780321f8", "c94c410194c765e3dcc7964379758ed3", Some(""), "", "94dca8edfcf90bb74b153c8d48a17930"),
    gcm("gcmEncryptExtIV128 PT128 AAD0 #0", "7fddb57453c241d03efbed3ac44e371c", "ee283a3fc75575e33efd4887", "", Some("d5de42b461646c255c87bd2962d3b9a2"), "2ccda4a5415cb91e135c2a0f78c9b2fd", "b36d1df9b9d5e596f83e8b7f52971cb3"),
    gcm("gcmEncryptExtIV128 PT128 AAD0 #1", "ab72c77b97cb5fe9a382d9fe81ffdbed", "54cc7dc2c37ec006bcc6d1da", "", Some("007c5e5b3e59df24a7c355584fc1518d"), "0e1bde206a07a9c2c1b65300f8c64997", "2b4401346697138c7a4891ee59867d0c"),
    gcm("gcmEncryptExtIV128 PT408 AAD160 #0", "fe47fcce5fc32665d2ae399e4eec72ba", "5adb9609dbaeb58cbd6e7275", "88319d6e1d3ffa5f987199166c8a9b56c2aeba5a",
        Some("7c0e88c88899a779228465074797cd4c2e1498d259b54390b85e3eef1c02df60e743f1b840382c4bccaf3bafb4ca8429bea063"),
        "98f4826f05a265e6dd2be82db241c0fbbbf9ffb1c173aa83964b7cf5393043736365253ddbc5db8778371495da76d269e5db3e", "291ef1982e4defedaa2249f898556b47"),
    gcm("gcmEncryptExtIV128 PT408 AAD160 #1", "ec0c2ba17aa95cd6afffe949da9cc3a8", "296bce5b50b7d66096d627ef", "f8d00f05d22bf68599bcdeb131292ad6e2df5d14",
        Some("b85b3753535b825cbe5f632c0b843c741351f18aa484281aebec2f45bb9eea2d79d987b764b9611f6c0f8641843d5d58f3a242"),
        "a7443d31c26bdf2a1c945e29ee4bd344a99cfaf3aa71f8b3f191f83c2adfc7a07162995506fde6309ffc19e716eddf1a828c5a", "890147971946b627c40016da1ecf3e77"),
    gcm("gcmEncryptExtIV128 PT408 AAD720 #0", "2c1f21cf0f6fb3661943155c3e3d8492", "23cb5ff362e22426984d1907",
        "5d3624879d35e46849953e45a32a624d6a6c536ed9857c613b572b0333e701557a713e3f010ecdf9a6bd6c9e3e44b065208645aff4aabee611b391528514170084ccf587177f4488f33cfb5e979e42b6e1cfc0a60238982a7aec",
        Some("42f758836986954db44bf37c6ef5e4ac0adaf38f27252a1b82d02ea949c8a1a2dbc0d68b5615ba7c1220ff6510e259f06655d8"),
        "81824f0e0d523db30d3da369fdc0d60894c7a0a20646dd015073ad2732bd989b14a222b6ad57af43e1895df9dca2a5344a62cc", "57a3ee28136e94c74838997ae9823f3a"),
    gcm("gcmEncryptExtIV128 PT104 AAD0 #0", "fe9bb47deb3a61e423c2231841cfd1fb", "4d328eb776f500a2f7fb47aa", "", Some("f1cc3818e421876bb6b8bbd6c9"), "b88c5c1977b35b517b0aeae967", "43fd4727fe5cdb4b5b42818dea7ef8c9"),
    gcm("gcmEncryptExtIV128 PT104 AAD0 #1", "6703df3701a7f54911ca72e24dca046a", "12823ab601c350ea4bc2488c", "", Some("793cd125b0b84a043e3ac67717"), "b2051c80014f42f08735a7b0cd", "38e6bcd29962e5f2c13626b85a877101"),
    // gcmDecrypt128.rsp
    gcm("gcmDecrypt128 PT0 AAD0 #0", "cf063a34d4a9a76c2c86787d3f96db71", "113b9785971864c83b01c787", "", Some(""), "", "72ac8493e3a5228b5d130a69d2510e42"),
    gcm("gcmDecrypt128 PT0 AAD0 #1 FAIL", "a49a5e26a2f8cb63d05546c2a62f5343", "907763b19b9b4ab6bd4f0281", "", None, "", "a2be08210d8c470a8df6e8fbd79ec5cf"),
    gcm("gcmDecrypt128 PT0 AAD128 FAIL", "d1f6af919cde85661208bdce0c27cb22", "898c6929b435017bf031c3c5", "7c5faa40e636bbc91107e68010c92b9f", None, "", "ae45f11777540a2caeb128be8092468a"),
    gcm("gcmDecrypt128 PT0 AAD128", "2370e320d4344208e0ff5683f243b213", "04dbb82f044d30831c441228", "d43a8e5089eea0d026c03a85178b27da", Some(""), "", "2a049c049d25aa95969b451d93c31c6e"),
    gcm("gcmDecrypt128 PT128 AAD0 #0", "e98b72a9881a84ca6b76e0f43e68647a", "8b23299fde174053f3d652ba", "", Some("28286a321293253c3e0aa2704a278032"), "5a3c1cf1985dbb8bed818036fdd5ab42", "23c7ab0f952b7091cd324835043b5eb5"),
    gcm("gcmDecrypt128 PT128 AAD0 #1", "33240636cd3236165f1a553b773e728e", "17c4d61493ecdc8f31700b12", "", Some("95695a5b12f2870b9cc5fdc8f218a97d"), "47bb7e23f7bdfe05a8091ac90e4f8b2e", "b723c70e931d9785f40fd4ab1d612dc9"),
    gcm("gcmDecrypt128 PT128 AAD0 FAIL", "5164df856f1e9cac04a79b808dc5be39", "e76925d5355e0584ce871b2b", "", None, "0216c899c88d6e32c958c7e553daa5bc", "a145319896329c96df291f64efbe0e3a"),
    gcm("gcmDecrypt128 PT408 AAD160 #0", "af57f42c60c0fc5a09adb81ab86ca1c3", "a2dc01871f37025dc0fc9a79", "41dc38988945fcb44faf2ef72d0061289ef8efd8",
        Some("3803a0727eeb0ade441e0ec107161ded2d425ec0d102f21f51bf2cf9947c7ec4aa72795b2f69b041596e8817d0a3c16f8fadeb"),
        "b9a535864f48ea7b6b1367914978f9bfa087d854bb0e269bed8d279d2eea1210e48947338b22f9bad09093276a331e9c79c7f4", "4f71e72bde0018f555c5adcce062e005"),
    gcm("gcmDecrypt128 PT408 AAD160 FAIL", "52bdbbf9cf477f187ec010589cb39d58", "d3be36d3393134951d324b31", "93c4fc6a4135f54d640b0c976bf755a06a292c33", None,
        "700188da144fa692cf46e4a8499510a53d90903c967f7f13e8a1bd8151a74adc4fe63e32b992760b3a5f99e9a47838867000a9", "8ca4e38aa3dfa6b1d0297021ccf3ea5f"),
    gcm("gcmDecrypt128 PT408 AAD720 #0", "da2bb7d581493d692380c77105590201", "44aa3e7856ca279d2eb020c6",
        "4cd171b23bddb3a53cdf959d5c1710b481eb3785a90eb20a2345ee00d0bb7868c367ab12e6f4dd1dee72af4eee1d197777d1d6499cc541f34edbf45cda6ef90b3c024f9272d72ec1909fb8fba7db88a4d6f7d3d925980f9f9f72",
        Some("9bbf4c1a2742f6ac80cb4e8a052e4a8f4f07c43602361355b717381edf9fabd4cb7e3ad65dbd1378b196ac270588dd0621f642"),
        "9290d430c9e89c37f0446dbd620c9a6b34b1274aeb6f911f75867efcf95b6feda69f1af4ee16c761b3c9aeac3da03aa9889c88", "9e3ac938d3eb0cadd6f5c9e35d22ba38"),
    gcm("gcmDecrypt128 PT408 AAD720 FAIL", "1986310c725ac94ecfe6422e75fc3ee7", "93ec4214fa8e6dc4e3afc775",
        "e80b88e62c49c958b5e0b8b54f532d9ff6aa84c8a40132e93e55b59fc24e8decf28463139f155d1e8ce4ee76aaeefcd245baa0fc519f83a5fb9ad9aa40c4b21126013f576c4272c2cb136c8fd091cc4539877a5d1e72d607f960",
        None, "b178ec72f85a311ac4168f42a4b2c23113fbea4b85f4b9dabb74e143eb1b8b0a361e0243edfd365b90d5b325950df0ada058f9", "8b347853f11d75e81e8a95010be81f17"),
    gcm("gcmDecrypt128 PT104 AAD0 #0", "387218b246c1a8257748b56980e50c94", "dd7e014198672be39f95b69d", "", Some("48f5b426baca03064554cc2b30"), "cdba9e73eaf3d38eceb2b04a8d", "ecf90f4a47c9c626d6fb2c765d201556"),
    gcm("gcmDecrypt128 PT104 AAD0 FAIL", "7d7b6c988137b8d470c57bf674a09c87", "9edf2aa970d016ac962e1fd8", "", None, "a85b66c3cb5eab91d5bdc8bc0e", "dc054efc01f3afd21d9c2484819f569a"),
];

/// SP 800-38C appendix C and CAVP AES-CCM cases.
#[rustfmt::skip]
pub const CCM: &[AeadVector] = &[
    ccm("SP 800-38C C.1", "404142434445464748494a4b4c4d4e4f", "10111213141516", "0001020304050607", "20212223", "7162015b", "4dac255d"),
    ccm("SP 800-38C C.2", "404142434445464748494a4b4c4d4e4f", "1011121314151617", "000102030405060708090a0b0c0d0e0f", "202122232425262728292a2b2c2d2e2f", "d2a1f0e051ea5f62081a7792073d593d", "1fc64fbfaccd"),
    ccm("SP 800-38C C.3", "404142434445464748494a4b4c4d4e4f", "101112131415161718191a1b", "000102030405060708090a0b0c0d0e0f10111213", "202122232425262728292a2b2c2d2e2f3031323334353637", "e3b201a9f5b71a7a9b1ceaeccd97e70b6176aad9a4428aa5", "484392fbc1b09951"),
    ccm("DVPT128 #0", "4ae701103c63deca5b5a3939d7d05992", "5a8aa485c316e9", "", "", "", "02209f55"),
    ccm("DVPT128 #60", "19ebfde2d5468ba0a3031bde629b11fd", "5a8aa485c316e9", "", "3796cf51b8726652a4204733b8fbb047cf00fb91a9837e22", "a90e8ea44085ced791b2fdb7fd44b5cf0bd7d27718029bb7", "03e1fa6b"),
    ccm("DVPT128 #120", "90929a4b0ac65b350ad1591611fe4829", "5a8aa485c316e9", "3796cf51b8726652a4204733b8fbb047cf00fb91a9837e22ec22b1a268f88e2c", "", "", "782e4318"),
    ccm("DVPT192 #60", "19ebfde2d5468ba0a3031bde629b11fd4094afcb205393fa", "5a8aa485c316e9", "", "3796cf51b8726652a4204733b8fbb047cf00fb91a9837e22", "411986d04d6463100bff03f7d0bde7ea2c3488784378138c", "ddc93a54"),
    ccm("DVPT256 #60", "af063639e66c284083c5cf72b70d8bc277f5978e80d9322d99f2fdc718cda569", "a544218dadd3c1", "", "d3d5424e20fbec43ae495353ed830271515ab104f8860c98", "64a1341679972dc5869fcf69b19d5c5ea50aa0b5e985f5b7", "22aa8d59"),
    ccm("VNT128 #0", "c0425ed20cd28fda67a2bcc0ab342a49", "37667f334dce90", "0b3e8d9785c74c8f41ea257d4d87495ffbbb335542b12e0d62bb177ec7a164d9", "4f065a23eeca6b18d118e1de4d7e5ca1a7c0e556d786d407", "768fccdf4898bca099e33c3d40565497dec22dd6e33dcf43", "84d71be8565c21a455db45816da8158c"),
    ccm("VNT128 #50", "005e8f4d8e0cbf4e1ceeb5d87a275848", "0ec3ac452b547b9062aac8fa", "2f1821aa57e5278ffd33c17d46615b77363149dbc98470413f6543a6b749f2ca", "b6f345204526439daf84998f380dcfb4b4167c959c04ff65", "9575e16f35da3c88a19c26a7b762044f4d7bbbafeff05d75", "4829e2a7752fa3a14890972884b511d8"),
    ccm("VNT128 #60", "ac87fef3b76e725d66d905625a387e82", "61bf06b9fa5a450d094f3ddcb5", "0245484bcd987787fe97fda6c8ffb6e7058d7b8f7064f27514afaac4048767fd", "959403e0771c21a416bd03f3898390e90d0a0899f69f9552", "cabf8aa613d5357aa3e70173d43f1f202b628a61d18e8b57", "2eb66bb8213a515aa61e5f0945cd57f4"),
    ccm("VNT192 #60", "36ad1e3fb630d1b1fbccfd685f44edd8984427b78deae7a9", "3af625df8be9d7685a842f260e", "308443033ecd4a814475672b814b7c6d813d0ec2a0caeecbcaba18a2840cdb6c", "8b9db1c8f9b4892a5654c85467bcffa2e15e28392c938952", "6bc6890fee299c712fb8d9df9c141f24ee1572b8f15112c2", "f8c99ccf2d82788cf613a61d60dae458"),
    ccm("VNT256 #60", "4a75ff2f66dae2935403cce27e829ad8be98185c73f8bc61d3ce950a83007e11", "46eb390b175e75da6193d7edb6", "282f05f734f249c0535ee396282218b7c4913c39b59ad2a03ffaf5b0e9b0f780", "205f2a664a8512e18321a91c13ec13b9e6b633228c57cc1e", "58f1584f761983bef4d0060746b5d5ee610ecfda31101a7f", "5460e9b7856d60a5ad9803c0762f8176"),
];
