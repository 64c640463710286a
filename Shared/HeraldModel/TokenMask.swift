/// A token as Herald shows it outside the provider request: its first and last six
/// characters (all but the last four hidden when it is shorter than 16).
public enum TokenMask {
    public static func masked(_ token: String) -> String {
        guard token.count >= 16 else { return "…" + token.suffix(min(4, token.count / 2)) }
        return "\(token.prefix(6))…\(token.suffix(6))"
    }
}
