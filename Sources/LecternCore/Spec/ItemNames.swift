import Foundation

/// A stage's name: what items, events, logs and `plan` rows are grouped by.
public struct StageName: RawRepresentable, Hashable, Sendable, Comparable, ExpressibleByStringLiteral, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }
    public static func < (a: StageName, b: StageName) -> Bool { a.rawValue < b.rawValue }

    /// Markdown → XHTML, done locally by every kind that writes documents.
    public static let render: StageName = "render"
}

/// An item's id: its stage, then a key within the stage (`lecture/s01-t02`,
/// `reinforcement/s01-t02/level-3`). Jobs build ids with these, so planning, assembly and every
/// reader of a bundle (preview, diff, exports, `lectern check`) agree.
public struct ItemID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// `stage` alone, or `stage/key/…`.
    public init(_ stage: StageName, _ keys: String...) {
        self.rawValue = ([stage.rawValue] + keys).joined(separator: "/")
    }

    public var description: String { rawValue }
}
