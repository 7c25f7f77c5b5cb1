// swift-tools-version: 6.2
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "ReduxConsumer",
    platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v6), .visionOS(.v1)],
    products: [
        .library(name: "ReduxConsumer", targets: ["ReduxConsumer"]),
        .library(name: "ReduxConsumerDiff", targets: ["ReduxConsumerDiff"]),
        .library(name: "ReduxConsumerTesting", targets: ["ReduxConsumerTesting"]),
        .executable(name: "consumer-demo", targets: ["consumer-demo"]),
        .executable(name: "consumer-bench", targets: ["consumer-bench"]),
    ],
    targets: [
        .target(
            name: "ReduxConsumer",
            dependencies: ["ReduxConsumerAtomics"],
            swiftSettings: strictSettings
        ),
        // Relaxed atomics and an asymmetric memory barrier (membarrier on Linux), in C: the
        // removal protocol of the consumer engine needs both (see Sources/ReduxConsumer/Serialization).
        .target(name: "ReduxConsumerAtomics"),
        .target(
            name: "ReduxConsumerDiff",
            dependencies: ["ReduxConsumer"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "ReduxConsumerTesting",
            dependencies: ["ReduxConsumer", "ReduxConsumerDiff"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "ConsumerDemoKit",
            dependencies: ["ReduxConsumer", "ReduxConsumerDiff"],
            path: "Example/Sources/ConsumerDemoKit",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "consumer-demo",
            dependencies: ["ConsumerDemoKit"],
            path: "Example/Sources/consumer-demo",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "consumer-bench",
            dependencies: ["ReduxConsumer", "ReduxConsumerDiff", "ConsumerDemoKit"],
            path: "Benchmarks/Sources/consumer-bench",
            swiftSettings: strictSettings
        ),
        // Helpers shared by the test targets (seeded randomness, a deadlock watchdog, fixtures).
        .target(
            name: "ReduxConsumerTestSupport",
            dependencies: ["ReduxConsumer"],
            path: "Tests/Support",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReduxConsumerTests",
            dependencies: ["ReduxConsumer", "ReduxConsumerTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReduxConsumerDiffTests",
            dependencies: ["ReduxConsumer", "ReduxConsumerDiff", "ReduxConsumerTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReduxConsumerTestingTests",
            dependencies: ["ReduxConsumer", "ReduxConsumerDiff", "ReduxConsumerTesting", "ReduxConsumerTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ConsumerDemoTests",
            dependencies: ["ConsumerDemoKit", "ReduxConsumer", "ReduxConsumerDiff", "ReduxConsumerTestSupport"],
            exclude: ["Golden"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
