import Foundation
import Testing

@testable import ReduxConsumerDiff

struct StructuralHashTests {
    struct Point: Codable, Hashable, Sendable {
        var x: Int
        var y: Int
    }

    /// The same fields as `Point`, declared in the other order.
    struct SwappedPoint: Codable, Hashable, Sendable {
        var y: Int
        var x: Int
    }

    private func hash<Value: Encodable & Sendable>(_ value: Value) throws -> UInt64 {
        try StateHash<Value>.structural.compute(value, HashScratch())
    }

    @Test func isTheSameInEveryProcess() throws {
        // A constant: a per-process seed (as `Hasher` has) would make this fail on the next run.
        #expect(try hash(Point(x: 1, y: 2)) == 0xcca9_7a70_256b_dac4)
    }

    @Test func ignoresTheOrderOfDictionaryAndSetElements() throws {
        let keys = (0..<200).map { "key\($0)" }
        var forward: [String: Int] = [:]
        for (index, key) in keys.enumerated() { forward[key] = index }
        var backward: [String: Int] = [:]
        for (index, key) in keys.enumerated().reversed() { backward[key] = index }
        #expect(try hash(forward) == hash(backward))
        #expect(try hash(Set(keys)) == hash(Set(keys.reversed())))
        let points = (0..<50).map { Point(x: $0, y: -$0) }
        #expect(
            try hash(Dictionary(uniqueKeysWithValues: points.map { ($0, "\($0.x)") }))
                == hash(Dictionary(uniqueKeysWithValues: points.reversed().map { ($0, "\($0.x)") })))
    }

    @Test func ignoresTheDeclarationOrderOfProperties() throws {
        #expect(try hash(Point(x: 1, y: 2)) == hash(SwappedPoint(y: 2, x: 1)))
    }

    @Test func tellsValuesKeysKindsAndArrayOrderApart() throws {
        #expect(try hash(Point(x: 1, y: 2)) != hash(Point(x: 2, y: 1)))
        #expect(try hash([1, 2]) != hash([2, 1]))
        #expect(try hash(["a": 1]) != hash(["b": 1]))
        #expect(try hash(1) != hash("1"))
        #expect(try hash(1) != hash(true))
        #expect(try hash([[1], [2]]) != hash([[1, 2]]))
        #expect(try hash(Optional<Int>.none) != hash(0))
        #expect(try hash("") != hash([String]()))
    }

    @Test func comparesNumbersAsJSONHoldsThem() throws {
        #expect(try hash(Int8(5)) == hash(5))
        #expect(try hash(UInt64(5)) == hash(Int64(5)))
        #expect(try hash(0.0) == hash(-0.0))
        #expect(try hash(Float(0.5)) == hash(0.5))
    }
}
