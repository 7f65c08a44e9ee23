/// The one rule every module applies to read a language tag: its primary subtag, lowercased,
/// before the first `-` or `_` ("ar-EG", "AR_eg" and "ar" are all "ar"). LecternCore's
/// `LanguageProfile` looks profiles up by it; TeXMath, LecternRender and LecternLLM, which
/// LecternCore depends on, ask it directly.
public enum LanguageSubtag {
    /// The primary subtag of `tag`, lowercased ("" for an empty tag).
    public static func primary(_ tag: String) -> String {
        tag.prefix { $0 != "-" && $0 != "_" }.lowercased()
    }

    /// Whether `tag`'s primary subtag is `subtag` (lowercase): `is("ar-EG", "ar")`.
    public static func `is`(_ tag: String, _ subtag: String) -> Bool {
        primary(tag) == subtag
    }
}
