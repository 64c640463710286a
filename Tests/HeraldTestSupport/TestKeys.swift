import _CryptoExtras

/// RSA keys for tests, made once with `openssl genpkey` and kept here. Generating a key at
/// run time costs CPU seconds in a debug build (a 4096-bit one most), on one of the few
/// threads every test of the process shares, so a suite that made its own stalled all the
/// others for that long. They protect nothing: no service or stack uses them.
public enum TestKeys {
    /// A 2048-bit key.
    public static let rsa2048 = """
        -----BEGIN PRIVATE KEY-----
        MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQClTTlQD4BsdK3b
        e8eQ1bPm+tG9CYzLIUHrYuynmgQmAFmYzcSkKdvKDoAbZ2N7B1tQCwCIWWF3xLRd
        yODWyzUujoIhVevSLl7NTB+euY8rfkEbxQBOseQa4WE/+0b3Xv7i4lvJneXwODCN
        bGdjfrwLM/yMc6ZStE33Uw3ISvoF+oGTn/0OgNmBQuwAJNVQX6B6QeVC2kyBNNYn
        BH5vMuzL1wm14oH2AmGouy5FtcoM+z58spCEWVBxPJMjTfzvdGxshoqAvRrByY+9
        HKBk17/mz9SUsjfdHXEWYsONvcaOvTI3MBLADZCllr2zi817Hbt+j3tA7IL90wg/
        P/W6GojZAgMBAAECggEADfMK2507RqvAAi4bZLcMA/l1mqDEL14inHUQKIKgR/6u
        kO0IY5werpnzqJxcckToKUSManU0evFwERwDEU07sy6Wf66rBGUiXevHHVNmaBKy
        9t90i6+KYtRTKx2O2xA6rTXR7h0zisaLHlwgC27l+oIMFWQrDH6nt6/cEWN2Xuum
        mxkpkkpAUoL/vBd/2ViZ7Ox9E5Tat5NIbKYSZmUToX6ga9l8aSxZ41euOw0on6Gl
        TiFx7IjiS8u4Fdajn3I0wcet3UcJXkaXdIVvM0SJi8SxSsf8IBVykiwVcqafliSx
        u3EP+IGrk3nVYOqrxZNRq0ZaE8XeuNxsTDYzOPyyowKBgQDa++qkbOeZytWMo1C4
        ri0aOggGur7rSMwmgmPppQoUX8eMPfhVTvUOfKN7wPY0Q8iNmyhyydqZLOh8nRk8
        AwvpzFwTaCHtkurXzPD8N6gJYd54Fm5IrnV0VEErlAkXLC8skWWlKKFOt3sHHDyZ
        +2tEMTwHAWUC4Gip+LEtnsGihwKBgQDBPk/3ScYe4bcrJQouC5ljfKMJjcfQkjt2
        RXUu6N+Lw74eTME4T1iKkif25kLCZRYKh5DTUfvdihW+Fj8N/YUVi/yn4vBdPVBe
        sC5ueOFygci9eCpjIeZ4UhUFTHGUG8oWZdoxh1S9MLjS9Fj1mW3yhLWjsDjDdFDh
        AxGesV9xnwKBgQDXzLoHH2t9G24nEipSVRMNbXLLbu0GYM8OhCCB96pfOaQkiE1Z
        hF3q0Nkq85WtG79gDS9nL5TEroTNiON9SGNNG58BYPVOciIMWGKDqzVlSZU7Mp+r
        8IC/CujOUSxEMb6rZP2OLOQJ9ra+4wy1kha7NOm63Zz1oMCEABhapMCdsQKBgFV8
        e2Op/zsqHx23BQnZl8GrIXTYg8yA5E0t7OkTm9D4huJgkhmXAFRM0+Ele+MDVPzT
        e/4ABqu6qmOs87f8ryMZCmw6uJqGxUceKWw1jYZaY7NttVKlbI9NwH7Xkmcy4/OE
        m0HN3G7VXu3zqmb7uOfQTYpcKsBMdHsWIHVTgiWBAoGAbmeh3UdFXWTxKYLSjhsy
        QxgEacr1ulcqlw+/dw8sXHUwp9ZMQwOUO7J4nhZIONqtuu8oHQH1E9CDwyQTq7sJ
        4xbRPSARrJv79jQU1SKuO9QoT9wieRalCmS83xvW1tmarBfbvoSxhkO5KSqXSfa2
        uG0cffqskTmewbDE49SG/jk=
        -----END PRIVATE KEY-----
        """

    /// Another 2048-bit key, for "the wrong key" cases.
    public static let otherRSA2048 = """
        -----BEGIN PRIVATE KEY-----
        MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQDL1Nw1/fAlxNcD
        ECD/PdXXa/J2ipPM/+jhTW5bJULhjPq8SX9iyhXi76oTPpuOMOp/0S0b88JhwgVl
        i+OMbd452q7Yof1CDV3X/NzFNIu8jhxQnvt+bzXuz2bBmdPDviKJ6F0fHQzqbzeY
        ueO3OJSEO5ZbPDfDcid/RgTf+1Gole5/HLnMt0DSrPP/zK0sue5FaGxkz9zEutzv
        A/5I0m04B/ujX98LWp37R6dk4k6wD4Futf5//Z1YNf+PnhfV/VQfwi7n7vGfabd0
        lhsqI1rtSu/PUGGYS+6fgZp/WrJFvKBX9N6Sr97o5yaH/kynZUe3T4uN1p9C1CbI
        R+LtOkChAgMBAAECggEABytAZ4G77Ygjy87IalHBcKcySusK0b36cdooVHpWBNrR
        gsfO/CmBZY7qW2zrSa/8v2wa+w2yu394cx7dbPX8R+qiFap03trbfxo8pY74jzQs
        WMWOsN62deTDh3GimhLY4iLTC6IY7zHkMbHwCWSrDI+P9TuD9pLQQtCyoTIUqCo1
        umDJUZxu/B5pcv5tAanY8IoUC/6NYC7QKUpd1sCAdxtwJDFrryVBQxlPTvc0o/Jg
        RQEetJowrhgt/76dATPSGqp9x4otCmRNBtDLCPzQDbXQgc2FzmYkpIPZVhFJ7hFU
        Vtr/yZ63f7Xb75qRIPcXdcC1dQZpgzrh8/LthnEARQKBgQDsIza0qahJvKxqIgMg
        sMloqYEizV+R6c8cY6mVs0UuS6Qjx8HLFLItAz/3WLsvD41vAoAOEkCAtUrtgA3I
        DVK0rglbl5poGavWTS+jifFqkNDxuvRZplDk10Si/6N6LDBdN/jKrhq7GvmX7seS
        GBBTmnO1VI+XN/Qz/HZbdSUgzwKBgQDc+f61rs2YENlhndQ19MrN+qNc6I8gdWNw
        kUq7+rE0v8Di5OJlMtxfmpAHFxdJCVmCjdHK65WnNheYrW1azK8kcYt2WcaIywHN
        tHhdcHR2Bdy0CwbjoujRu76X/nrpieotHSum+4Q+vsicw1yhgvq5J9XQ7Bpve1Zu
        pmdM5d2DjwKBgE7bm6NNnROy3Gk9HopGP5yiLqvupeHWkQHMDpAdpBbHz/La/M7T
        BIWftjbl/OzEZtkRnq4UTlItOO6Dexa5zErma92YjUoCeK5CbIxSvrp1zjFL29os
        fotNkHBWqsNcCnK3BHC7H9YoNf4VEbSqMJma1NVTffhkCTtrLiNwxYtlAoGAV3ep
        B5dCj/+TXB1SA2163R9pjHwNM0bj7onEMDYh8IQ6QFVi+7WvHzSZ8ASG1gUaZh/m
        u9CWcxJpMqjrETbV2LINBvKwMDNS6m6V+j5qCtF1M9rthitUxrfu0FENq+VISUUz
        oywJg6CW3d5CizfCMIoBC2p5aElExBWf7ANMtCcCgYAN0NMwDhYLK5+5kOloHJ1I
        gGOmUhW1gXyUroDmMXKINQK0HN/SXwxL2na654EUg7LKC8zRrFP91UlMGUqIaJBP
        Mdgej0U03k7/MUkrnBcrxyKzma+Ch1tO9UVK7zru2VrM5yt6Cd5cNiOCvQ4QuoLw
        2JjR6V7UcCHJ8s0ng5w6bw==
        -----END PRIVATE KEY-----
        """

    /// A 4096-bit key, the largest Herald accepts.
    public static let rsa4096 = """
        -----BEGIN PRIVATE KEY-----
        MIIJRAIBADANBgkqhkiG9w0BAQEFAASCCS4wggkqAgEAAoICAQCwCtR7Ahl5jf6b
        xFJkIZ9nfHTTHr60fKybaVeYOXXHb6vZMsTJwyVMNpEEDTgZCq2mS3lr/yikYpdG
        re4kFECqgb1m8otXcx9adrXzS7NXmBqgor2lU5aAqWg3YfstSRRHriEmpthveSEz
        uEQFwPz63bkxU9LYH2RANrpd7EAV+93NAroFv4mXjqwFTIc7XVyrei4M+dSE4cPS
        ZAJpNo5cJSSjP7+pNGUrqE6IgV0zsIFfCfv9UHTlIrAuA+oWrEuOlIT3pBJ1F8M9
        a4qDzOZmU1kk+ww3ZxPysIVpzJydv874FFscfWHe8Ch90cMQ2W0IzUnPyWJQbjnS
        GxfHhBno5LBQIx/UWzAThh4Q0u1jr9TEmuQoxr6Kl9Xq8Fqs87aL8Wq0+BUiLvAk
        jv1YdR97GfIZBxkzNrBboYOaMiR7SnuEKnooX9d1Nr7hwUBKhf6S3q3TOtNgqI+9
        /aVI2Mz3UpbT3xDXXSInOWSk4FSWLEik1vv/jZKYOjc97rmb++RX4uPgsGT7ok8g
        LGgcWp2k+tE71RSFCNyHZVaOydROkQuQED3hmpGEcXXgvrr4WqIg44etmak9t5Vv
        0bZcHqJMtb2+vxIxN6Xh//x3RM04HAHI+M0LVG226gfLhOW7Cl10LnVlsPqUt8kl
        kyXZIzMyViAqIKEMrQcxz2JBx/jkHwIDAQABAoICAD8oI4LeBfWuE6IelNCHn4Cp
        DeCQLyrhb6tx55MdSjv6vFR3+lHISSFGklA5zd5uDk6S1UUBjbssA8m/rKgU+/4v
        /ZtpeMQu8RirbiuTBQxv7V2kBRXDH0OZg2IbLNnaVgRBXHNZeFzFwDul6AGIczot
        QbuIryQKXxUKjWIU2AkLC0/5onNdfCd7cAuWoQ2TOSPr+Yl+N9hUhsR8TMEiaYB1
        cud+f2xc987p2wLuJlndAQzvsA/5RXbPMxXPIbRwq8rDTdDqdBS+KbVnV5JheGdN
        j7XMu11FBcsTuUlzttyBa+dkpitacDpjPqOlFa590rhNriV1wmfIo8XVInrZ0dE7
        f7iAYlYgJX36S5KxnE/B+GsZARNckQh5IMheFw46fs/aRKarFzPO3s8mkHzt9NoJ
        iANVqotcN2Ecnaycg/RTMjvX9D/4Jb1GZlDWB3tIUDpTjuJc5KCKqEetQF+4qg7S
        r53G3j3HB/JxfGOjpjU4eIKnmDE2BnE6vHE9yWNDEMMdgeM01T7YS3ivCz+3o+Jh
        M7JZ7LM+OmKOZw/G6SGifNbSMt1Hn9K44eXLXV+ylPPk3lcMkG0LOHSjd6QiCovw
        LK2rO4Qo0BSRdRS7KOLKIBTG9FGd9o7Cxvk+e1uNi/pIfHuUmc9SaeBtEFMedCEj
        yqWczEzLic8054c8fAJBAoIBAQDeF/wWb55CSL2UTquJu23ZBO7DDPwY23A+t2dS
        9wES4gl2bS1XPK8n2fvjIpJO2Xu79BQpRvotF5SDKk72B99PRpL+t+iuScda9ZDi
        1y0Sh/s2S3Cf6XZ1Ky16rPYA4OqNxHHkI494pj2m9kmKMKCMpIiTz0JphtHAAfXJ
        mByXxsM0rkuvm65dxdxU9WqE7DHHXOH/NsDjQN/95Wn9c9+uA1Lu/CmxlrZ7nS5Z
        jxrfYFAczVw4usskmDAdTmf7zX+g3dlP0Hkm8cSCzA4Ub7hnOv4zGUWUz5YLG+G2
        ArijzteGJoosGeF5CPWo0a8h3Yth2wMTPmXDEAzVkj0sTxE9AoIBAQDK6wiz/C7A
        44YHTty8npCOKjHPWJBwhIoqrcjgB9D3xVP0c7ho3Es97xINgKuDMcoTq3plSq1V
        3tbA/G1bHWJTzsdskEBt/D4lQ3HVhcIUp8cWpTeIzpeL4cuYZawziV25bZkL9KJW
        LhyvzElkfhplZJPEwVSMOgkvwlkE36KesWq3ChvxGkTYahIqJ4l5Ur7W4iak1jgN
        EgU0/am96E9nGWJVgEPcHqqAStFvJ2O1vZuJHuGBQL5nB1rAYUA/Pd7+1JicA/fz
        6baDyoS2GLVqtNxKb/+8N/2UNeiHf4OREbS8nedwyPcNsqeyDRW5Ihc7kUQ9AruP
        N779kmPbTSiLAoIBAQCrXcZdaXKrooTlUm55r+1qbqvsRLCgXXGWct1+3qgtccvr
        XQKHNYPRNBlvgNVzkcwvkn2b+/A9qtwk+RhELn7YJJR3hmA7WyI/xQsufOmCSvpD
        QqJ8QR/t+Ir3BU4sD1/sU4+tgOLLLTqVAaRsxGidHLdllZ6g3i4qAVktW/l0AyHM
        HFC6B13bbTg9NcAjIDyon7qhuhXLQ9uRhNrrfeUx186+KEPji27yoq2I3SrXAPHP
        x4VJIJhufB9j/YOufznjXkq3kxxoOFRwuBKFIk8fGB3cP7u4vxP/LlxSnHbrrkYO
        dN5YeP/I7GjhAion71IFB4Cv8I2EnXXJtTUOY1PhAoIBAQC/+EU+iZjtsRKOfWRF
        KbnWVULUR5Q2bp2MLOb6U0q17UA05vmScr7YNAGfNpiMQKFNpI/hnhmIQI5o+ya1
        6YGpidmO8pWRt+5PMJRUDfwDsIqf+OQmEFS86HvFjIKyKwW5NF9zORgPcgZ/pkPU
        x5xPSiymGsTS+ODSBwpSmwPtICm2SuEOYuy41PikWs0rM0YKYt9uWJ+kdeTpMgXQ
        /SOJhTFLdFI+v+BMCPxELT6epGet/MIYltjK/eE0WYz/h5gc+6H5D6QXZIbf/cs5
        vvx6m+pAnd6SAWJsQeffsJoWt2qGetiHEgjwM5GE1+4yPHdASnkFQz2QC4wrtr+z
        rDZrAoIBAQDWub/iUMBlNMj0TJXJPsx/YBOprvqAwOoWXtvuBbqLBs2aPl7NdD/x
        QffbogXhe1phDi/wp/9XmFJS/FO8856IISaglm3kdtcNfjVTI2zExgSrnPPBcP/a
        VsQECkwgVVX4cyGajonp/tk++3tCzKAAA0ASum5XJ0UpTDXW/Ub40fgMTO5nUq+8
        L+LRiGnn3PDosOWoVctZI2HRDujt69mLqdVsNNjIwU2me6EqcKZ+4esxGIns5WfT
        EbzJfNpZgvQ2FAXRwDRKsb7Xsue8DnMjQj3oEEwHgtA8X5PoA7F8DfMRuS5eFZfr
        RJn6y5Iounk4bW98gWVFXOHR8okrH0IO
        -----END PRIVATE KEY-----
        """

    /// `pem` as a key to decrypt with.
    public static func encryptionKey(_ pem: String) -> _RSA.Encryption.PrivateKey {
        try! _RSA.Encryption.PrivateKey(pemRepresentation: pem)
    }

    /// `pem` as a key to sign with.
    public static func signingKey(_ pem: String) -> _RSA.Signing.PrivateKey {
        try! _RSA.Signing.PrivateKey(pemRepresentation: pem)
    }

    /// A P-256 private key in PKCS#8 PEM, as Apple's `.p8` files are: a signing key the
    /// sandbox does not know.
    public static let otherP256PEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgTNk9Nfdz86tl5Hvg
        d7TZERNhP0aMTf/qz+87xVOHKmehRANCAASnVjFTmj+teEzaX6qAA3qgTc3D41ie
        C5M5+mmFNNAp5iOmq5/76ae/VDBEDIQIhLTEYYEgr7evB++b5R5ryWab
        -----END PRIVATE KEY-----
        """
}
