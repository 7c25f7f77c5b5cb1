import ReduxConsumer

extension StateDiff {
    /// The location of a change inside the diffed values, such as `auth.user.name`, `works[2]`
    /// or `tags["x"]`.
    ///
    /// An empty path is the root: the values themselves differ, for example two different
    /// integers. It is written `(root)`.
    public struct Path: Sendable, Hashable {
        /// One step from a value into a part of it.
        public enum Component: Sendable, Hashable {
            /// A stored property of a struct or class, or a tuple element (`0` when unlabeled).
            case field(String)
            /// The position of an element in an array or other collection.
            case index(Int)
            /// A dictionary key, rendered like a value: `"x"` for a string key, `3` for an `Int`.
            case key(String)
            /// The payload of an enum case, named after the case.
            case `case`(String)
        }

        /// The steps from the root to the change, outermost first.
        public var components: [Component]

        /// Creates a path from its steps, outermost first.
        ///
        /// - Parameter components: The steps; empty for the root.
        public init(_ components: [Component] = []) {
            self.components = components
        }
    }
}

extension StateDiff.Path: CustomStringConvertible {
    /// The path as written in rendered diffs: properties and enum cases joined by `.`, indices
    /// as `[2]` and keys as `["x"]`, or `(root)` for the empty path.
    public var description: String {
        guard !components.isEmpty else {
            return "(root)"
        }
        var text = ""
        for component in components {
            switch component {
            case .field(let name), .case(let name):
                if !text.isEmpty {
                    text += "."
                }
                // A custom mirror's label may hold a line break: a change stays on one line.
                text += name.escapingLineBreaks()
            case .index(let index):
                text += "[\(index)]"
            case .key(let key):
                text += "[\(key)]"
            }
        }
        return text
    }
}
