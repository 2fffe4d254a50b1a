// A minimal MCP server on the v2 TypeScript SDK (@modelcontextprotocol/server), with one
// `echo` tool shaped like server-everything's: the stdio benchmark's second reference.
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const server = new McpServer({ name: "bench-v2-echo", version: "1.0.0" });
server.registerTool(
  "echo",
  {
    title: "Echo Tool",
    description: "Echoes back the input string",
    inputSchema: z.object({ message: z.string().describe("Message to echo") }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  },
  async ({ message }) => ({ content: [{ type: "text", text: `Echo: ${message}` }] }),
);
await server.connect(new StdioServerTransport());
