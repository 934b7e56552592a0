import { Body, Controller, HttpCode, Param, Post, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiOperation, ApiParam, ApiProperty, ApiSchema, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { AdminGuard } from '../../http/auth.guard';
import { jsonShape } from '../../http/json-shape-limits';
import { ApiErrorResponses } from '../../openapi/error-responses';
import { ADMIN_TOKEN_SCHEME } from '../../openapi/security-schemes';
import { type InvitationView, Invitations } from './invitations';

@ApiSchema({ name: 'InvitationRequest' })
class InvitationRequestDto {
  @ApiProperty({ format: 'email', maxLength: 254 }) email!: string;
  @ApiProperty({ enum: ['owner', 'admin', 'viewer'], default: 'viewer' }) role!: string;
}

@ApiSchema({ name: 'Invitation', description: 'A console invitation: its link is signed, single-use and expires.' })
class InvitationDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uri', description: 'The link to send to the person: it opens the console, where they choose a password.' })
  url!: string;
  @ApiProperty({ format: 'email' }) email!: string;
  @ApiProperty({ enum: ['owner', 'admin', 'viewer'] }) role!: string;
  @ApiProperty({ format: 'date-time' }) expires_at!: string;
  @ApiProperty({ description: "True when the address is the organization's member: the link sets a new password for that account." })
  password_reset!: boolean;
}

@ApiSchema({ name: 'InvitationCreated' })
class InvitationCreatedDto {
  @ApiProperty({ type: InvitationDto }) data!: InvitationDto;
}

/**
 * The operator starts an organization's console: the first owner's invitation (docs/console.md).
 * Part of the admin API (/admin/v1, ADMIN_TOKEN) and of its OpenAPI document.
 */
@ApiTags('admin')
@ApiBearerAuth(ADMIN_TOKEN_SCHEME)
@UseGuards(AdminGuard)
@Controller('admin/v1/organizations')
export class AdminInvitationsController {
  constructor(private readonly invitations: Invitations) {}

  @Post(':org/invitations')
  @HttpCode(201)
  @ApiOperation({
    operationId: 'admin.invitations.create',
    summary: "Invite a person to the organization's console (e.g. its first owner)",
    description:
      "For the address of the organization's own member, the link sets a new password for that member's account (the service's password reset; the role is not used). Whoever opens the link sets the password: send it by a channel you trust.",
  })
  @ApiParam({ name: 'org', description: 'Organization id (UUID).' })
  @ApiBody({ type: InvitationRequestDto })
  @ApiCreatedResponse({ type: InvitationCreatedDto })
  @ApiErrorResponses(404, 422)
  async invite(@Req() req: FastifyRequest, @Param('org') org: string, @Body(jsonShape) body: unknown): Promise<{ data: InvitationView }> {
    return { data: await this.invitations.create(org, body, null, String(req.id)) };
  }
}
