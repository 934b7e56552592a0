import { Module } from '@nestjs/common';
import { OutputHandlers } from './output.handlers';

@Module({ controllers: [OutputHandlers] })
export class OutputModule {}
