import { Module } from '@nestjs/common';
import { ProjectorHandlers } from './projector.handlers';

@Module({ controllers: [ProjectorHandlers] })
export class ProjectorModule {}
