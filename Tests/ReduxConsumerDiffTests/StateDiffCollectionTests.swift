import ReduxConsumer
import ReduxConsumerDiff
import ReduxConsumerTestSupport
import Testing

extension StateDiffTests {
    @Test(arguments: [
        (["a", "b", "c"], ["a", "x", "b", "c"], [#"+ [1]: "x""#]),
        (["a", "b", "c"], ["a", "c"], [#"- [1]: "b""#]),
        (["a", "b", "c"], ["a", "x", "c"], [#"~ [1]: "b" → "x""#]),
        (["a", "b"], ["a", "b", "c", "d"], [#"+ [2]: "c""#, #"+ [3]: "d""#]),
        (["a", "b", "c", "d"], ["b", "d", "e"], [#"- [0]: "a""#, #"- [2]: "c""#, #"+ [2]: "e""#]),
        ([], ["a"], [#"+ [0]: "a""#]),
        (["a"], [], [#"- [0]: "a""#]),
        (["a", "b", "c"], ["b", "c", "a"], [#"- [0]: "a""#, #"+ [2]: "a""#]),
    ])
    func arrayElementsAreAlignedBeforeComparing(old: [String], new: [String], expected: [String]) {
        #expect(lines(old, new) == expected)
    }

    @Test
    func changedArrayElementIsComparedFieldByField() {
        let old = [User(name: "Kim", age: 3), User(name: "Lee", age: 4)]
        let new = [User(name: "Kim", age: 3), User(name: "Lee", age: 5)]
        #expect(lines(old, new) == ["~ [1].age: 4 → 5"])
    }

    @Test
    func nonEquatableElementsAreAlignedByTheirRendering() {
        let old = [Note(text: "a"), Note(text: "b"), Note(text: "c")]
        let new = [Note(text: "a"), Note(text: "new"), Note(text: "b"), Note(text: "c", pinned: true)]
        #expect(
            lines(old, new) == [
                #"+ [1]: Note(text: "new", pinned: false)"#,
                "~ [3].pinned: false → true",
            ]
        )
    }

    @Test
    func tenThousandElementArrayWithOneChangeGivesOneLine() {
        // How long it takes is measured by consumer-bench (the D scenarios), not here.
        let old = (0..<10_000).map { User(name: "user \($0)", age: $0) }
        var new = old
        new[5_000].age = -1
        #expect(StateDiff(from: old, to: new).rendered() == "~ [5000].age: 5000 → -1")
    }

    @Test
    func largeArraysOfNonEquatableElementsWithOneChangeGiveOneLine() {
        let old = (0..<10_000).map { Note(text: "note \($0)") }
        var new = old
        new.insert(Note(text: "inserted"), at: 7_000)
        #expect(lines(old, new) == [#"+ [7000]: Note(text: "inserted", pinned: false)"#])
    }

    @Test
    func largeDissimilarArraysFallBackToIndexByIndex() {
        let old = Array(0..<3_000)
        let new = Array(3_000..<6_000)
        let diff = StateDiff(from: old, to: new)
        // One change per index, each old element against the new one at its index.
        #expect(diff.changes.map(\.description) == (0..<3_000).map { "~ [\($0)]: \($0) → \($0 + 3_000)" })
    }

    @Test
    func dictionaryEntriesAreComparedByKeyInKeyOrder() {
        let old = ["b": 2, "a": 1, "c": 3]
        let new = ["d": 4, "a": 1, "b": 5]
        #expect(lines(old, new) == [#"~ ["b"]: 2 → 5"#, #"- ["c"]: 3"#, #"+ ["d"]: 4"#])
    }

    @Test
    func dictionaryValuesAreComparedInside() {
        let old = ["kim": User(name: "Kim", age: 3)]
        let new = ["kim": User(name: "Kim", age: 4)]
        #expect(lines(old, new) == [#"~ ["kim"].age: 3 → 4"#])
        #expect(lines([1: "a"], [1: "b"]) == [#"~ [1]: "a" → "b""#])
    }

    @Test
    func setMembersAreRemovedAndAddedAtTheSetPath() {
        let old: Set = ["swift", "redux", "linux"]
        let new: Set = ["swift", "consumer", "linux", "async"]
        #expect(lines(old, new) == [#"- (root): "redux""#, #"+ (root): "async""#, #"+ (root): "consumer""#])
    }
}
