import { Module } from '@nestjs/common';
import { AiProviders } from '@app/ai-providers';
import { MappingHandlers } from './mapping.handlers';

@Module({ controllers: [MappingHandlers], providers: [AiProviders] })
export class MappingModule {}
