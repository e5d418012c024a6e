import { IsIn, IsNumber, IsOptional, IsString } from 'class-validator';

export class EchoInput {
  /** The text to send back. */
  @IsString()
  text!: string;
}

export class EchoOutput {
  @IsString()
  text!: string;
}

export class AddInput {
  @IsNumber()
  a!: number;

  @IsNumber()
  b!: number;
}

export class AddOutput {
  @IsNumber()
  sum!: number;
}

export const SUMMARY_STYLES = ['brief', 'detailed'] as const;
export type SummaryStyle = (typeof SUMMARY_STYLES)[number];

export class SummarizeArgs {
  @IsString()
  text!: string;

  @IsOptional()
  @IsIn(SUMMARY_STYLES)
  style?: SummaryStyle;
}
