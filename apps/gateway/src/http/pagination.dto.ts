import { ApiProperty, ApiSchema } from '@nestjs/swagger';

/** The pagination envelope's parts, as the spec describes them (list responses: `{ data, links, meta }`). */
@ApiSchema({ name: 'PaginationLinks' })
export class PaginationLinksDto {
  @ApiProperty({ type: String, format: 'uri', nullable: true }) first!: string | null;
  @ApiProperty({ type: String, format: 'uri', nullable: true }) last!: string | null;
  @ApiProperty({ type: String, format: 'uri', nullable: true }) prev!: string | null;
  @ApiProperty({ type: String, format: 'uri', nullable: true }) next!: string | null;
}

@ApiSchema({ name: 'PaginationMetaLink' })
export class PaginationMetaLinkDto {
  @ApiProperty({ type: String, format: 'uri', nullable: true }) url!: string | null;
  @ApiProperty({ example: '&laquo; Previous' }) label!: string;
  @ApiProperty() active!: boolean;
}

@ApiSchema({ name: 'PaginationMeta' })
export class PaginationMetaDto {
  @ApiProperty({ type: 'integer', minimum: 1 }) current_page!: number;
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    nullable: true,
    description: 'Number of the first item in the slice; null when it is empty.',
  })
  from!: number | null;
  @ApiProperty({ type: 'integer', minimum: 1 }) last_page!: number;
  @ApiProperty({
    type: [PaginationMetaLinkDto],
    description:
      'Previous, the pages in Laravel\'s window (every page of fewer than 14; a "..." entry with a null url where pages are left out), Next.',
  })
  links!: PaginationMetaLinkDto[];
  @ApiProperty({ type: String, nullable: true, description: 'Base path of the generated URLs.' }) path!: string | null;
  @ApiProperty({ type: 'integer', minimum: 0 }) per_page!: number;
  @ApiProperty({ type: 'integer', minimum: 1, nullable: true, description: 'Number of the last item in the slice; null when it is empty.' })
  to!: number | null;
  @ApiProperty({ type: 'integer', minimum: 0 }) total!: number;
}
