import { describe, expect, it } from "vitest";
import { activeTokens, distance, nearest, parseQuery, parseToken } from "@/components/board/query";
import { boardSearch, listFilterOf, parseBoardFilters } from "@/components/task/filters";

const QUEUES = ["default", "triage", "billing"];

describe("the board's query box", () => {
  it("turns finished key:value words into filters and the rest into the search", () => {
    const parsed = parseQuery("status:queued queue:triage priority:>5 boiler gauge", QUEUES, true);
    expect(parsed.change).toEqual({ status: "queued", queue: "triage", priority: "6" });
    expect(parsed.q).toBe("boiler gauge");
    expect(parsed.rest).toBe("boiler gauge");
    expect(parsed.errors).toEqual([]);
  });

  it("leaves the word being typed in the box, neither applied nor searched", () => {
    const typing = parseQuery("boiler status:que", QUEUES, false);
    expect(typing.change).toEqual({});
    expect(typing.q).toBe("boiler");
    expect(typing.rest).toBe("boiler status:que");
    const done = parseQuery("boiler status:queued ", QUEUES, false);
    expect(done.change).toEqual({ status: "queued" });
    expect(done.rest).toBe("boiler ");
  });

  it("refuses an unknown value in words, keeps it in the box, and suggests a near queue", () => {
    const parsed = parseQuery("queue:triag status:nope", QUEUES, true);
    expect(parsed.change).toEqual({});
    expect(parsed.rest).toBe("queue:triag status:nope");
    expect(parsed.errors[0]).toBe("No open queue is called “triag”. Did you mean “triage”?");
    expect(parsed.errors[1]).toMatch(/^There is no status “nope”/);
  });

  it("reads priorities as the lowest admitted: >5 is 6, >=5 and 5+ are high, >0 is raised", () => {
    expect(parseToken("priority:>5", QUEUES)?.change).toEqual({ priority: "6" });
    expect(parseToken("priority:>=5", QUEUES)?.change).toEqual({ priority: "high" });
    expect(parseToken("priority:5+", QUEUES)?.change).toEqual({ priority: "high" });
    expect(parseToken("priority:>0", QUEUES)?.change).toEqual({ priority: "raised" });
    expect(parseToken("priority:>-3", QUEUES)?.change).toEqual({ priority: "-2" });
    expect(parseToken("priority:>5000", QUEUES)?.error).toMatch(/from -1000 to 1000/);
    expect(parseToken("priority:>=5+", QUEUES)?.error).toBeDefined();
  });

  it("treats words with an unknown key (a URL) as search words", () => {
    const parsed = parseQuery("https://example.com/a owner:me", QUEUES, true);
    expect(parsed.q).toBe("https://example.com/a");
    expect(parsed.change).toEqual({ mine: true, unowned: false });
  });

  it("says the active filters as the words that set them, each parsing back to itself", () => {
    const filters = parseBoardFilters(new URLSearchParams("queue=triage&status=claimed&owner=none&priority=6&age=1d&sort=created&check=1"));
    const tokens = activeTokens(filters);
    expect(tokens.map((t) => t.text)).toEqual(["status:claimed", "queue:triage", "owner:none", "priority:>=6", "age:>1d", "sort:created", "check:yes"]);
    const back = parseQuery(tokens.map((t) => t.text).join(" "), QUEUES, true).change;
    expect({ ...parseBoardFilters(new URLSearchParams()), ...back }).toMatchObject({ ...filters, mine: false });
  });

  it("keeps a numeric priority in the URL and in the list's query", () => {
    const filters = parseBoardFilters(new URLSearchParams("priority=6"));
    expect(filters.priority).toBe("6");
    expect(boardSearch(filters)).toBe("?priority=6");
    expect(listFilterOf(filters).minPriority).toBe(6);
    expect(listFilterOf(parseBoardFilters(new URLSearchParams("priority=high"))).minPriority).toBe(5);
    expect(parseBoardFilters(new URLSearchParams("priority=99999")).priority).toBeUndefined();
    expect(parseBoardFilters(new URLSearchParams("priority=1.5")).priority).toBeUndefined();
  });

  it("suggests only a near name", () => {
    expect(distance("kitten", "sitting")).toBe(3);
    expect(nearest("biling", QUEUES)).toBe("billing");
    expect(nearest("zzz", QUEUES)).toBeUndefined();
  });
});
