import { usageError } from "./errors";
import { optional, parse, required, str, type Command } from "./flags";
import { row } from "./escape";

// Questions to a person from a shell (docs/questions.md), as the one `cli` actor with the
// operator's standing: list the open ones of every queue, answer one (the task returns to
// started for its owner). The same engine operations as the inbox and the API.

export const questionCommands: Record<string, Command> = {
  "question list": {
    usage: "question list   (the open questions, soonest deadline first)",
    options: {},
    positionals: true,
    async prepare(_values, positionals) {
      if (positionals.length > 0) throw usageError("question list takes no arguments");
      return async (db) => {
        const { listOpenQuestions } = await import("@/lib/tasks");
        const { performAsCli } = await import("./database");
        const open = await performAsCli(db, listOpenQuestions, {});
        if (open.length === 0) return ["no open questions"];
        return open.map((q) => row([q.id, `task ${q.taskId}`, q.queue, `by ${q.askedBy.name}`, `until ${q.deadline.toISOString()}`, q.question, q.choices.length > 0 ? `[${q.choices.join(" | ")}]` : ""]));
      };
    },
  },

  "question answer": {
    usage: "question answer ID --question Q --text T [--choice C]",
    options: { question: str, text: str, choice: str },
    positionals: true,
    async prepare(values, positionals) {
      const { answerQuestionInput } = await import("@/lib/tasks/model");
      if (positionals.length !== 1) throw usageError("question answer takes one task id");
      const input = parse(answerQuestionInput, {
        taskId: positionals[0]!,
        questionId: required(values, "question"),
        text: values.text ?? values.choice,
        choice: optional(values, "choice"),
      }, { taskId: "ID", questionId: "--question", text: "--text", choice: "--choice" });
      return async (db) => {
        const { answerQuestion } = await import("@/lib/tasks");
        const { performAsCli } = await import("./database");
        const { task } = await performAsCli(db, answerQuestion, input);
        return [`question ${input.questionId} answered: task ${task.id} is ${task.status} (version ${task.version}) for ${task.owner?.name ?? "nobody"}`];
      };
    },
  },
};
