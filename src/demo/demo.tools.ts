import { Injectable } from '@nestjs/common';
import { McpArgs, McpTool } from '@app/mcp';
import { AddInput, AddOutput, EchoInput, EchoOutput } from './demo.dto.js';

/** The demo's tools. */
@Injectable()
export class DemoTools {
  @McpTool({
    name: 'echo',
    title: 'Echo',
    description: 'Returns the text it is given.',
    input: EchoInput,
    output: EchoOutput,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  })
  echo(@McpArgs() { text }: EchoInput): EchoOutput {
    return { text };
  }

  @McpTool({
    name: 'add',
    title: 'Add',
    description: 'Adds two numbers and returns their sum.',
    input: AddInput,
    output: AddOutput,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  })
  add(@McpArgs() { a, b }: AddInput): AddOutput {
    return { sum: a + b };
  }
}
