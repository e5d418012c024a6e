import { IsIn, IsNotEmpty, IsString } from 'class-validator';

export class CreateNoteInput {
  @IsString()
  @IsNotEmpty()
  title!: string;

  @IsString()
  body!: string;
}

export class CreateNoteOutput {
  @IsString()
  id!: string;

  @IsString()
  uri!: string;
}

export class UpdateNoteInput {
  @IsString()
  @IsNotEmpty()
  id!: string;

  @IsString()
  body!: string;
}

export class UpdateNoteOutput {
  @IsString()
  id!: string;

  @IsString()
  uri!: string;

  @IsString()
  updatedAt!: string;
}

export class DeleteNoteInput {
  @IsString()
  @IsNotEmpty()
  id!: string;
}

export class SummarizeNoteInput {
  @IsString()
  @IsNotEmpty()
  id!: string;
}

/** The formats of `notes.export`. */
export const EXPORT_FORMATS = ['json', 'markdown'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export class ExportNotesInput {
  @IsIn(EXPORT_FORMATS)
  format!: ExportFormat;
}
