import { Injectable } from '@nestjs/common';
import { McpArgs, McpInvalidParamsException, McpPrompt } from '@app/mcp';
import { SUMMARY_STYLES, type SummaryStyle } from './demo.dto.js';

const INSTRUCTIONS: Record<SummaryStyle, string> = {
  brief: 'Summarize the following text in one or two sentences.',
  detailed: 'Write a detailed summary of the following text, keeping every important point.',
};

/** The demo's prompts. */
@Injectable()
export class DemoPrompts {
  @McpPrompt({
    name: 'summarize',
    title: 'Summarize',
    description: 'Asks the model to summarize a text, briefly or in detail.',
    arguments: [
      { name: 'text', description: 'The text to summarize', required: true },
      {
        name: 'style',
        description: `How to summarize: ${SUMMARY_STYLES.join(' or ')} (default brief)`,
        complete: (value) => SUMMARY_STYLES.filter((style) => style.startsWith(value)),
      },
    ],
  })
  summarize(@McpArgs('text') text: string, @McpArgs('style') style?: string) {
    if (style !== undefined && !(SUMMARY_STYLES as readonly string[]).includes(style)) {
      throw new McpInvalidParamsException(`Argument 'style' must be one of ${SUMMARY_STYLES.join(', ')}`);
    }
    const chosen = (style ?? 'brief') as SummaryStyle;
    return {
      messages: [{ role: 'user', content: { type: 'text', text: `${INSTRUCTIONS[chosen]}\n\n${text}` } }],
    };
  }
}
