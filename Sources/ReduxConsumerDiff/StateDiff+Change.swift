import ReduxConsumer

extension StateDiff {
    /// One difference between two values: where it is, what kind it is, and the values involved.
    ///
    /// Values are stored already rendered, so a change is `Sendable` whatever the state holds.
    /// The notation is Swift-like: strings and characters quoted and escaped (`"Kim"`), structs
    /// and classes as `User(name: "Kim", age: 3)`, enums as `.loaded(count: 3)`, arrays as
    /// `["a", "b"]`, dictionaries as `["a": 1]` and sets as `Set(["a"])` (both sorted by rendering;
    /// one too large to show whole, with `Comparable` keys, shows its smallest keys by `<` and then
    /// how many more: `Set([0, 1, 2, …199990 more])`), optionals unwrapped or `nil`. Line breaks in a value's own description are written as `\n` (or `\r`,
    /// `\u{2028}` …), so that every change renders on one line.
    public struct Change: Sendable, Hashable {
        /// What happened at a path.
        public enum Kind: String, Sendable, Hashable, Encodable {
            /// Something is present only in the new value: an optional became non-`nil`, an
            /// element was inserted, a dictionary key or set member was added.
            case added
            /// Something is present only in the old value.
            case removed
            /// Both values have something at the path and it differs.
            case changed
        }

        /// Where the change is, relative to the diffed values.
        ///
        /// Set members are added or removed at the path of the set itself.
        public let path: Path

        /// What happened at ``path``.
        public let kind: Kind

        /// The rendered old value; `nil` for ``Kind/added``.
        public let oldValue: String?

        /// The rendered new value; `nil` for ``Kind/removed``.
        public let newValue: String?
    }
}

extension StateDiff.Change: CustomStringConvertible {
    /// The change as one line of text in the default ``DiffFormat``, such as
    /// `~ auth.user.name: "Kim" → "Lee"`.
    public var description: String { DiffFormat().line(for: self) }
}

extension StateDiff.Change: Encodable {
    private enum CodingKeys: String, CodingKey {
        case path
        case kind
        case oldValue = "old"
        case newValue = "new"
    }

    /// Encodes the change as `{"path": "auth.user.name", "kind": "changed", "old": "…", "new": "…"}`.
    ///
    /// The path is its ``StateDiff/Path/description``; `old` is omitted for additions and `new`
    /// for removals.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path.description, forKey: .path)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(oldValue, forKey: .oldValue)
        try container.encodeIfPresent(newValue, forKey: .newValue)
    }
}
