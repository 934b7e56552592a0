import { Body, Controller, Delete, HttpCode, Param, Post, Put, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiExcludeController } from '@nestjs/swagger';
import { AdminGuard } from '../http/auth.guard';
import { AdminService } from './admin.service';

/** The admin API under /admin/v1 (docs/admin.md). Not part of the public OpenAPI document. */
@ApiExcludeController()
@ApiBearerAuth()
@UseGuards(AdminGuard)
@Controller('admin/v1/organizations')
export class AdminController {
  constructor(private readonly admin: AdminService) {}

  @Post()
  @HttpCode(201)
  createOrganization(@Body() body: unknown) {
    return this.admin.createOrganization(body);
  }

  @Post(':org/api-keys')
  @HttpCode(201)
  issueKey(@Param('org') org: string) {
    return this.admin.issueKey(org);
  }

  @Delete(':org/api-keys/:id')
  @HttpCode(204)
  async revokeKey(@Param('org') org: string, @Param('id') id: string) {
    await this.admin.revokeKey(org, id);
  }

  @Put(':org/webhook')
  setWebhook(@Param('org') org: string, @Body() body: unknown) {
    return this.admin.setWebhook(org, body);
  }

  @Post(':org/webhook/rotate-secret')
  @HttpCode(200)
  rotateSecret(@Param('org') org: string) {
    return this.admin.rotateWebhookSecret(org);
  }

  @Put(':org/quota')
  setQuota(@Param('org') org: string, @Body() body: unknown) {
    return this.admin.setQuota(org, body);
  }

  @Post(':org/schemas')
  @HttpCode(201)
  createSchema(@Param('org') org: string, @Body() body: unknown) {
    return this.admin.putSchema(org, body);
  }

  @Put(':org/schemas/:id')
  updateSchema(@Param('org') org: string, @Param('id') id: string, @Body() body: unknown) {
    return this.admin.putSchema(org, body, id);
  }

  @Delete(':org/schemas/:id')
  @HttpCode(204)
  async deleteSchema(@Param('org') org: string, @Param('id') id: string) {
    await this.admin.deleteSchema(org, id);
  }

  @Post(':org/providers')
  @HttpCode(201)
  createProvider(@Param('org') org: string, @Body() body: unknown) {
    return this.admin.putProvider(org, body);
  }

  @Put(':org/providers/:id')
  updateProvider(@Param('org') org: string, @Param('id') id: string, @Body() body: unknown) {
    return this.admin.putProvider(org, body, id);
  }

  @Delete(':org/providers/:id')
  @HttpCode(204)
  async deleteProvider(@Param('org') org: string, @Param('id') id: string) {
    await this.admin.deleteProvider(org, id);
  }
}
