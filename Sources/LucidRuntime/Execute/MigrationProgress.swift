@_spi(Generated) import LucidSchema

/// Where a migration is, for an app's UI or the CLI's progress bar.
public struct MigrationProgress: Sendable, Equatable {
    /// Steps in the path.
    public var totalSteps: Int
    /// 1-based index of the running step (0 before the first).
    public var step: Int
    /// The running step, e.g. "1.0 → 2.0 (inferred)".
    public var stepLabel: String
    /// What the step is doing now, e.g. "rebuild table log_entry".
    public var operation: String
    /// Rows copied so far by the running operation, and how many it will copy (0 when it copies none).
    public var rowsDone: Int
    /// Rows the current operation copies (0 when it copies none).
    public var rowsTotal: Int

    /// A progress report (the runtime makes them; tests and custom displays may too).
    ///
    /// ```swift
    /// let progress = MigrationProgress(totalSteps: 3, step: 1, stepLabel: "1.0 → 2.0 (inferred)", operation: "starting")
    /// ```
    package init(totalSteps: Int, step: Int, stepLabel: String, operation: String, rowsDone: Int = 0, rowsTotal: Int = 0) {
        self.totalSteps = totalSteps
        self.step = step
        self.stepLabel = stepLabel
        self.operation = operation
        self.rowsDone = rowsDone
        self.rowsTotal = rowsTotal
    }
}
